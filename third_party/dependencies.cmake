# CMake glue for the Debian packages vkcl builds on. No sources live here.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(Vulkan REQUIRED)
find_package(SPIRV-Tools REQUIRED)
find_package(SPIRV-Tools-opt REQUIRED)
find_package(SPIRV-Tools-link REQUIRED)
find_package(LLVM 15 REQUIRED CONFIG PATHS /usr/lib/llvm-15/lib/cmake/llvm NO_DEFAULT_PATH)
find_package(Clang REQUIRED CONFIG PATHS /usr/lib/llvm-15/lib/cmake/clang NO_DEFAULT_PATH)
pkg_check_modules(LLVMSPIRVLib REQUIRED IMPORTED_TARGET GLOBAL LLVMSPIRVLib)
find_package(OpenCL REQUIRED)
add_library(vkcl_opencl_headers INTERFACE)
target_include_directories(vkcl_opencl_headers INTERFACE ${OpenCL_INCLUDE_DIRS})
add_library(OpenCL::Headers ALIAS vkcl_opencl_headers)

# volk ships as volk.h + volk.c in /usr/include (libvulkan-volk-dev); build it once.
find_file(VOLK_SOURCE volk.c PATHS /usr/include REQUIRED)
add_library(vkcl_volk STATIC ${VOLK_SOURCE})
target_include_directories(vkcl_volk SYSTEM PUBLIC ${Vulkan_INCLUDE_DIRS})
target_compile_definitions(vkcl_volk PUBLIC VK_NO_PROTOTYPES)
target_link_libraries(vkcl_volk PUBLIC Vulkan::Headers ${CMAKE_DL_LIBS})
add_library(vkcl::volk ALIAS vkcl_volk)

add_library(vkcl_spirv_tools INTERFACE)
target_link_libraries(vkcl_spirv_tools INTERFACE SPIRV-Tools-opt SPIRV-Tools-link SPIRV-Tools-static)
target_compile_definitions(vkcl_spirv_tools INTERFACE SPV_ENABLE_UTILITY_CODE)
add_library(vkcl::spirv_tools ALIAS vkcl_spirv_tools)

# clang + LLVM (shared libraries) and SPIRV-LLVM-Translator for the in-process compiler.
add_library(vkcl_clang INTERFACE)
target_include_directories(vkcl_clang SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
target_compile_definitions(vkcl_clang INTERFACE ${LLVM_DEFINITIONS})
target_link_libraries(vkcl_clang INTERFACE clang-cpp LLVM PkgConfig::LLVMSPIRVLib)
add_library(vkcl::clang ALIAS vkcl_clang)

if(VKCL_BUILD_TESTS)
  find_package(GTest REQUIRED)
  pkg_check_modules(MPFR IMPORTED_TARGET mpfr)
endif()
