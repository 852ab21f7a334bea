import sys

from pipelines import numpy_features
from stats import batch_stats

if __name__ == "__main__":
    pipe = numpy_features(sys.argv[1])
    pipe.build()
    print("files", pipe.epoch_size("Features"))
    for step in range(3):
        data, row_means = pipe.run()
        mean, top = batch_stats(data)
        print(f"step {step}: mean {mean:.4f} max {top:.4f} row means[0] {row_means.at(0).tolist()}")
