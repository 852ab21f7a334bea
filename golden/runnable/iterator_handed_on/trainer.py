"""A stand-in for a training framework: it knows nothing about DALI, only that a loader iterates
over steps of [{name: tensor}] and is reset between epochs."""


class Trainer:
    def __init__(self, epochs):
        self.epochs = epochs

    def fit(self, loader):
        results = []
        for _ in range(self.epochs):
            batches, total = 0, 0.0
            for step in loader:
                batches += 1
                total += float(step[0][loader.output_map[0]].sum())
            loader.reset()
            results.append((batches, total))
        return results
