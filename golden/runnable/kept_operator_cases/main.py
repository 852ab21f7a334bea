"""Runs the test cases of test_cases.py with nose2, as DALI runs its own tests: the data folder reaches them
through the environment."""

import os
import sys

import nose2

if __name__ == "__main__":
    os.environ["CASES_DATA"] = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    result = nose2.discover(argv=["nose2", "-s", here, "test_cases"], exit=False)
    sys.exit(0 if result.result.wasSuccessful() else 1)
