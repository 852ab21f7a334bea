"""A tiny logistic-regression 'model' in numpy, so that the training loop has something to update."""

import numpy as np


class LogisticModel:
    def __init__(self, features):
        self.w = np.zeros(features, dtype=np.float64)
        self.b = 0.0

    def loss_and_step(self, x, y, lr):
        logits = x @ self.w + self.b
        p = 1.0 / (1.0 + np.exp(-logits))
        eps = 1e-9
        loss = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))
        grad = p - y
        self.w -= lr * x.T @ grad / len(y)
        self.b -= lr * grad.mean()
        return float(loss)
