#!/usr/bin/env bash
# pipelines/render/render_frame.py (issue 34 item 7): renders a demrun output folder's last
# frame offscreen under xvfb-run. Checks: the PNG exists with the size asked and is not blank
# (the script refuses a blank image itself), spheres are drawn at their true size (the script
# compares the glyphs' extent with the spheres' and fails otherwise), and a folder without
# frames is an error naming it. Skipped (77) without xvfb-run or VTK's Python.
# usage: test_render.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
. "$(dirname "$0")/harness.sh"
command -v xvfb-run > /dev/null || { echo "no xvfb-run: skipped"; exit 77; }
/usr/bin/python3 -c "import vtk" 2> /dev/null || { echo "no python3-vtk9: skipped"; exit 77; }
demrun=$build/runtime/demrun/demrun
render=$src/pipelines/render/render_frame.py
mkdir -p "$work/case"
cd "$work/case" || exit 1
cat > scene.yaml <<'YAML'
time: {dt: auto, steps: 200}
gravity: [0, 0, -9.81]
materials:
  glass: {E: 1e8, nu: 0.25, density: 2500, friction: 0.3}
shapes:
  ball: {sphere: 0.001}
grains:
  - lattice: {shape: ball, origin: [-0.002, -0.002, 0.00101], spacing: 0.0021, count: [3, 3, 2]}
walls:
  - {name: floor, plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  - {name: west, plane: {point: [-0.004, 0, 0], normal: [1, 0, 0]}}
  - {name: east, plane: {point: [0.004, 0, 0], normal: [-1, 0, 0]}}
output: {frames: {every: 100}}
YAML
"$demrun" -q -o out scene.yaml || bad "demrun"
if xvfb-run -a /usr/bin/python3 "$render" out pile.png --size 640x480 --title test > log 2>&1; then ok
else bad "render: $(cat log)"; fi
size=$(/usr/bin/python3 -c "
import struct
with open('pile.png', 'rb') as f:
    head = f.read(24)
print(*struct.unpack('>II', head[16:24]))" 2> /dev/null)
[ "$size" = "640 480" ] && ok || bad "PNG size '$size', expected 640 480"
mkdir empty
if xvfb-run -a /usr/bin/python3 "$render" empty x.png > log 2>&1; then bad "an empty folder rendered"
else grep -q "render_frame: error: empty: no frames/ folder" log && ok || bad "message: $(cat log)"; fi
[ ! -e x.png ] && ok || bad "wrote x.png"
echo "render: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
