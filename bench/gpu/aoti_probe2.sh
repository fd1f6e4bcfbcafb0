#!/usr/bin/env bash
# The second AOTI probe, as run on the H200 (bench/gpu/results/run2/aoti-probe2.log): compiles an
# nn.Linear as a CPU and a CUDA package in /tmp, loads each with aoti_load_package (30 s each),
# dlopens the CPU package's wrapper .so by itself, and prints a gdb backtrace where gdb exists.
#   bash bench/gpu/aoti_probe2.sh > probe2.log 2>&1
set -x
which gdb g++ gcc; g++ --version | head -1; python3 -c "import torch; print(torch.__file__, torch._C._GLIBCXX_USE_CXX11_ABI)"
cat > /tmp/p2.py <<'PY'
import os, sys, time, torch, zipfile, subprocess
out = sys.argv[1]
m = torch.nn.Linear(8, 4)
for dev in ("cpu", "cuda"):
    t0 = time.time()
    mm = m.to(dev)
    ep = torch.export.export(mm.eval(), (torch.ones(2, 8, device=dev),))
    p = f"/tmp/lin-{dev}.pt2"
    torch._inductor.aoti_compile_and_package(ep, package_path=p)
    print(dev, "compiled", round(time.time() - t0, 1), flush=True)
    z = zipfile.ZipFile(p); print([n for n in z.namelist() if n.endswith(".so")], flush=True)
PY
timeout 150 python3 /tmp/p2.py
for dev in cuda cpu; do timeout 30 python3 -X faulthandler -c "import torch; r=torch._inductor.aoti_load_package('/tmp/lin-$dev.pt2', device_index=0 if '$dev'=='cuda' else -1); print('$dev loaded'); print(r(torch.ones(3,8,device='$dev')).shape)" 2>&1 | tail -4; echo "load $dev rc=${PIPESTATUS[0]}"; done
mkdir -p /tmp/x && cd /tmp/x && python3 -c "import zipfile; zipfile.ZipFile('/tmp/lin-cpu.pt2').extractall('.')" && so=$(find . -name '*.so' | head -1) && ldd $so | head -20 && readelf -d $so | head -20
cd /tmp/x && timeout 30 python3 -X faulthandler -c "import torch, ctypes; ctypes.CDLL('$(find /tmp/x -name '*.so' | head -1)'); print('dlopen ok')" 2>&1 | tail -3
which gdb && timeout 60 gdb -batch -ex run -ex 'bt 30' --args python3 -c "import torch; torch._inductor.aoti_load_package('/tmp/lin-cpu.pt2')" 2>&1 | grep -E '^#|signal' | head -40
