"""Mentions dali in text only (a DALI tutorial link), imports none: never rewritten."""

import pandas as pd

URL = "https://docs.nvidia.com/deeplearning/dali/"


def at(df):
    return df.at[0, "a"], len(df)
