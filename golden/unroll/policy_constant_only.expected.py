# A module that only names a policy for other modules' iterators: its members stay enum members (marked).
from nvidia.dali.plugin.base_iterator import LastBatchPolicy

# dali-migrate: DM105 LastBatchPolicy.DROP is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
TRAIN_POLICY = LastBatchPolicy.DROP
