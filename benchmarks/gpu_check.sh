#!/usr/bin/env bash
# GPU check for the differential harness: run on a machine with an NVIDIA GPU (and nvidia-dali-cuda12x).
#
#   bash benchmarks/gpu_check.sh [OUT_DIR]        (default OUT_DIR: $OUT, else benchmarks/gpu_results)
#
# 1. verifies, as written (no device mapping), the GPU cases: the factory case (decoders.image
#    device="mixed", labels.gpu(), device_id=0) and the classification benchmark (mixed decode,
#    GPU resize and crop_mirror_normalize), and checks that both sides' GPU outputs are on the GPU;
# 2. runs the throughput benchmark (eager, capture, sync_cpu) and writes its table and JSON;
# 3. runs the training-loop benchmark (issue 18: pipeline mode against dali-migrate's output, a consumer
#    that converts each batch with torch and then works 0, 10 and 20 ms; batch 16 and batch 64 at 224 px)
#    and writes training_loop.md and training_loop.json;
# 4. device_id from a variable (issue 15, capability 6): the golden program device_id_variable on the GPU as
#    written (verify --run, rank 1 of 2 where there are 2 GPUs, else rank 0), and the migrated generators of
#    golden/unroll/device_id_variable.py given device_id=k for each GPU k (at most 2): their outputs must be on
#    gpu:k (the steps run in the Prefetch thread), torch tensors on cuda:k, and the caller's current device
#    must not change.
# Without a GPU it still runs (devices are then mapped to cpu and reported) but says it proved nothing
# about the GPU, and exits 3.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
OUT_DIR=${1:-${OUT:-benchmarks/gpu_results}}
mkdir -p "$OUT_DIR"
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT

GPUS=$($PY -c "from dali_migrate.harness.devices import cuda_device_count as c; print(c())")
echo "CUDA devices seen by DALI: $GPUS" | tee "$OUT_DIR/summary.txt"
$PY -c "import nvidia.dali as d; print('DALI', d.__version__)" | tee -a "$OUT_DIR/summary.txt"
$PY - "$DATA" <<'PY'
import sys
from pathlib import Path
sys.path.insert(0, "benchmarks")
import throughput  # benchmarks/throughput.py
throughput.make_images(Path(sys.argv[1]) / "images", 200)
small = Path(sys.argv[1]) / "small"
throughput.make_images(small, 10)
PY

status=0
check() {  # check NAME JSON: verdict equal, and on a GPU machine no mapping and GPU outputs where expected
  $PY - "$1" "$2" "$GPUS" <<'PY' | tee -a "$OUT_DIR/summary.txt" || status=1
import json, sys
name, path, gpus = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(path))
devices = [(o["name"], o["devices"]["original"], o["devices"]["migrated"]) for o in r["outputs"]]
print(f"{name}: verdict={r['verdict']} mapped_to_cpu={r['devices']['mapped_to_cpu']} output devices={devices}")
ok = r["verdict"] == "equal"
if gpus:
    ok = ok and not r["devices"]["mapped_to_cpu"] and devices[0][1] == devices[0][2] == "gpu"
for o in r["outputs"]:
    print(f"  {o['name']}: {o['status']} exact={o['exact']} max_abs={o['max_abs_error']:.3g} "
          f"max_rel={o['max_rel_error']:.3g}")
    for m in o["mismatches"][:3]:
        print(f"    {m}")
sys.exit(0 if ok else 1)
PY
}

$PY -m dali_migrate verify tests/harness_cases/factory/original.py --pipeline make_pipe \
  --migrated tests/harness_cases/factory/migrated.py --args "[\"$DATA/small\"]" --iterations 5 --json \
  > "$OUT_DIR/verify_factory.json" || true
check factory "$OUT_DIR/verify_factory.json"

$PY -m dali_migrate verify benchmarks/classification/original.py --pipeline classification \
  --migrated benchmarks/classification/migrated.py --args "[\"$DATA/images\"]" --iterations 13 --json \
  > "$OUT_DIR/verify_classification.json" || true
check classification "$OUT_DIR/verify_classification.json"

$PY benchmarks/throughput.py --data "$DATA/images" --runs 2 --json "$OUT_DIR/throughput.json" \
  | tee "$OUT_DIR/throughput.md" || status=1

$PY benchmarks/training_loop.py --runs 3 --consumer torch --json "$OUT_DIR/training_loop.json" \
  | tee "$OUT_DIR/training_loop.md" || status=1

RANK=$([ "$GPUS" -gt 1 ] && echo 1 || echo 0)
$PY -m dali_migrate verify --run "$PY main.py $DATA/small --world_size 2 --local_rank $RANK" \
  golden/runnable/device_id_variable --json > "$OUT_DIR/verify_device_id_program.json" || true
$PY - "$OUT_DIR/verify_device_id_program.json" <<'PY' | tee -a "$OUT_DIR/summary.txt" || status=1
import json, sys
r = json.load(open(sys.argv[1]))
devices = r.get("devices", {})
print(f"device_id_variable program: verdict={r.get('verdict')} mapped_to_cpu={devices.get('mapped_to_cpu')}")
sys.exit(0 if r.get("verdict") == "equal" and not devices.get("mapped_to_cpu") else 1)
PY
$PY - "$DATA/small" "$GPUS" <<'PY' | tee -a "$OUT_DIR/summary.txt" || status=1
import sys, types
from pathlib import Path
import nvidia.dali.experimental.dynamic as ndd
from dali_migrate import migrate_source
data, gpus = sys.argv[1], int(sys.argv[2])
if not gpus:
    print("device_id generators: no GPU, nothing checked"); sys.exit(0)
source = Path("golden/unroll/device_id_variable.py").read_text()
module = types.ModuleType("device_id_variable")
exec(compile(migrate_source(source, "device_id_variable.py").migrated, "device_id_variable", "exec"), module.__dict__)
ok = True
before = ndd.Device.current()
for k in range(min(gpus, 2)):
    stream = module.create_dali_pipeline(batch_size=4, device_id=k, seed=12, data_dir=data, crop=8, shard_id=0,
                                         num_shards=1)
    images, labels = next(stream)
    block = module.make_with_block(data, 2, 2, k)
    block_images, _ = next(block)
    loader = module.EpochIterator(module.create_dali_pipeline(batch_size=4, device_id=k, seed=12, data_dir=data,
                                                              crop=8, shard_id=0, num_shards=1),
                                  ["data", "label"], reader_name="Reader")
    tensor = next(loader)[0]["data"]
    found = (str(images.device), str(block_images.device), str(tensor.device), str(ndd.Device.current()))
    want = (f"gpu:{k}", f"gpu:{k}", f"cuda:{k}", str(before))
    print(f"device_id={k}: ReaderStream images on {found[0]}, with-block on {found[1]}, EpochIterator torch on "
          f"{found[2]}, caller's device {found[3]} (want {want})")
    ok = ok and found == want
    stream.close(); block.close()
sys.exit(0 if ok else 1)
PY

if [ "$GPUS" = "0" ]; then
  echo "NOTE: no GPU here: devices were mapped to cpu; this run proves nothing about the GPU." | tee -a "$OUT_DIR/summary.txt"
  exit 3
fi
exit $status
