from .pipes import create_loader_pipe

__all__ = ["create_loader_pipe"]
