# Sourced on a lent GPU machine from the repository root (see pack.sh): unpacks vkcl and its
# libraries, points the Vulkan loader at NVIDIA's driver and writes /tmp/vendors with vkcl
# and, where the machine has it, NVIDIA's own OpenCL (for the benchmark).
for f in .devrun/debs/*.deb; do dpkg -x "$f" /; done
ldconfig
root=$PWD
tar xJf .devrun/clang-include.tar.xz -C /
tar xJf .devrun/libs.tar.xz -C .devrun
tar xJf .devrun/tree.tar.xz -C "$root"
mkdir -p /usr/lib/clc && cp .devrun/lib/spirv64-mesa3d-.spv /usr/lib/clc/
# Test data paths are compiled in as the build machine's absolute paths.
build_root=$(sed -n 's|/build[^/]*/cl_frontend/libvkcl.so||p' "$(ls -d build*/vkcl.icd | head -1)")
[ -e "$build_root" ] || { mkdir -p "$(dirname "$build_root")"; ln -s "$root" "$build_root"; }
export LD_LIBRARY_PATH=$root/.devrun/lib XDG_RUNTIME_DIR=/tmp PATH=$root/.devrun/bin:$PATH
icd=$(ls /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json 2>/dev/null | head -1)
[ -n "$icd" ] && export VK_DRIVER_FILES=$icd
mkdir -p /tmp/vendors
cp "$(ls -d build*/vkcl.icd | head -1)" /tmp/vendors/vkcl.icd
ocl=$(find /usr/lib /usr/local/nvidia -name 'libnvidia-opencl.so*' 2>/dev/null | head -1)
[ -n "$ocl" ] && echo "$ocl" > /tmp/vendors/nvidia.icd
echo "vulkan driver: ${icd:-none}; NVIDIA OpenCL: ${ocl:-none}"
