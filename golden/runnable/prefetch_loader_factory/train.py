"""Training over the loader the factory of loaders.py returns, with work between batches."""

import argparse

import torch

from loaders import make_loader


def train_step(weights, images, labels):
    """A stand-in for forward and backward: a linear score, its error, a small update of the weights."""
    scores = (images.flatten(1) @ weights).squeeze(1)
    error = scores - labels.float()
    grad = images.flatten(1).t() @ error.unsqueeze(1) / images.shape[0]
    return weights - 0.01 * grad, float(error.abs().mean())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    loader = make_loader(args.data, batch_size=3)
    weights = torch.zeros(3 * 12 * 12, 1)
    for epoch in range(args.epochs):
        losses = []
        for data in loader:
            images, labels = data[0]["images"], data[0]["labels"].squeeze(-1)
            weights, loss = train_step(weights, images, labels)
            losses.append(loss)
            print(f"epoch {epoch}: {tuple(images.shape)} labels {labels.tolist()} loss {loss:.5f}")
        print(f"epoch {epoch}: {len(losses)} batches, mean loss {sum(losses) / len(losses):.5f}")
    print(f"weights sum {float(weights.sum()):.6f}")


if __name__ == "__main__":
    main()
