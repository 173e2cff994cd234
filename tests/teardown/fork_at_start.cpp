// A client that forks right after its first clCreateContext, while vkcl may still be loading
// its built-in libraries on a thread of its own (joined by a static destructor at exit), and
// whose child then leaves through exit() (static destructors and all) without touching
// OpenCL. The child must end at once: the parent's thread exists in the child only as a
// copy, which glibc marks finished at the fork, so the join returns. Several rounds, each in
// a new process; ctest runs it as its own process.
#include <CL/cl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

// One process that makes a context and forks at once: 0 when its child ended by itself
// within the time, 1 otherwise.
int round() {
  cl_platform_id platform = nullptr;
  cl_uint count = 0;
  if (clGetPlatformIDs(1, &platform, &count) != CL_SUCCESS || count == 0) return 77;
  cl_device_id device = nullptr;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) return 77;
  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  if (!context) return 1;
  const pid_t child = fork();
  if (child == 0) std::exit(0);
  if (child < 0) return 1;
  int status = 0;
  for (int i = 0; i < 200; ++i) {
    if (waitpid(child, &status, WNOHANG) == child) {
      clReleaseContext(context);
      return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::fprintf(stderr, "the forked child did not end within 10 s\n");
  kill(child, SIGKILL);
  waitpid(child, &status, 0);
  return 1;
}

}  // namespace

int main() {
  for (int r = 0; r < 5; ++r) {
    const pid_t process = fork();
    if (process == 0) std::_Exit(round());
    int status = 0;
    waitpid(process, &status, 0);
    const int result = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (result != 0) return result;
  }
  std::printf("5 rounds: every forked child ended\n");
  return 0;
}
