# A module that only names a policy for other modules' iterators: its members stay enum members (marked).
from nvidia.dali.plugin.base_iterator import LastBatchPolicy

TRAIN_POLICY = LastBatchPolicy.DROP
