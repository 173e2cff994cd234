// Host <-> device transfers of one buffer, wall clock (what a host program waits for):
// clEnqueueWriteBuffer and clEnqueueReadBuffer blocking and non-blocking (+ clFinish), a map
// for writing (CL_MAP_WRITE_INVALIDATE_REGION, memset, unmap, clFinish) and a map for reading
// (map, compare every byte with what was written, unmap, clFinish). Host memory is ordinary
// (not pinned). Every read and map checks the data that the previous step wrote.

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "suite.h"

namespace vkcl_bench {
namespace {

enum Row { kWriteBlocking, kWriteAsync, kReadBlocking, kReadAsync, kMapWrite, kMapRead, kRows };

class TransferTrial : public Trial {
 public:
  TransferTrial(Platform& platform, size_t bytes)
      : platform_(platform), bytes_(bytes), source_(bytes / 4), target_(bytes / 4) {}

  cl_int Run(Outcome& outcome) override {
    cl_command_queue queue = platform_.queue.get();
    cl_mem memory = buffer.get();
    ++run_;
    for (size_t i = 0; i < source_.size(); ++i)
      source_[i] = static_cast<uint32_t>(i * 2654435761u + run_);
    double start = 0;
    auto record = [&](Row row) { outcome.samples[row].push_back(bytes_ * 1e-9 / (NowSeconds() - start)); };

    for (Row row : {kWriteBlocking, kWriteAsync}) {
      start = NowSeconds();
      cl_int error = clEnqueueWriteBuffer(queue, memory, row == kWriteBlocking, 0, bytes_,
                                          source_.data(), 0, nullptr, nullptr);
      if (error == CL_SUCCESS) error = clFinish(queue);
      if (error != CL_SUCCESS) return error;
      record(row);
    }
    for (Row row : {kReadBlocking, kReadAsync}) {
      std::fill(target_.begin(), target_.end(), 0u);
      start = NowSeconds();
      cl_int error = clEnqueueReadBuffer(queue, memory, row == kReadBlocking, 0, bytes_,
                                         target_.data(), 0, nullptr, nullptr);
      if (error == CL_SUCCESS) error = clFinish(queue);
      if (error != CL_SUCCESS) return error;
      record(row);
      if (target_ != source_) wrong_[row] = true;
    }
    const int fill = 0x40 + run_ % 64;
    cl_int error = CL_SUCCESS;
    start = NowSeconds();
    void* mapped = clEnqueueMapBuffer(queue, memory, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                      bytes_, 0, nullptr, nullptr, &error);
    if (error != CL_SUCCESS) return error;
    std::memset(mapped, fill, bytes_);
    error = clEnqueueUnmapMemObject(queue, memory, mapped, 0, nullptr, nullptr);
    if (error == CL_SUCCESS) error = clFinish(queue);
    if (error != CL_SUCCESS) return error;
    record(kMapWrite);

    start = NowSeconds();
    mapped = clEnqueueMapBuffer(queue, memory, CL_TRUE, CL_MAP_READ, 0, bytes_, 0, nullptr,
                                nullptr, &error);
    if (error != CL_SUCCESS) return error;
    const unsigned char* bytes = static_cast<const unsigned char*>(mapped);
    const bool same = std::all_of(bytes, bytes + bytes_, [&](unsigned char b) { return b == fill; });
    error = clEnqueueUnmapMemObject(queue, memory, mapped, 0, nullptr, nullptr);
    if (error == CL_SUCCESS) error = clFinish(queue);
    if (error != CL_SUCCESS) return error;
    record(kMapRead);
    // A wrong map-for-read means the map for writing or the map for reading lost the data.
    if (!same) wrong_[kMapRead] = true;
    return CL_SUCCESS;
  }

  void Check(Outcome& outcome) override {
    for (int row = 0; row < kRows; ++row) {
      if (!wrong_[row]) continue;
      outcome.marks[row] = "WRONG";
      outcome.note += std::string(outcome.note.empty() ? "" : "; ") +
                      (row == kMapRead ? "mapped data differs from the memset of the write map"
                                       : "read data differs from the data written");
    }
  }

  Platform& platform_;
  Buffer buffer;

 private:
  size_t bytes_;
  std::vector<uint32_t> source_, target_;
  bool wrong_[kRows] = {};
  int run_ = 0;
};

}  // namespace

void AddTransferMeasures(std::vector<Measure>& measures, const Options& options) {
  const size_t requested = size_t{options.quick ? 16u : 64u} << 20;
  const std::string size = " " + std::to_string(requested >> 20) + " MiB (GB/s)";
  Measure measure;
  measure.rows = {{"transfer write blocking" + size, true},
                  {"transfer write non-blocking+finish" + size, true},
                  {"transfer read blocking" + size, true},
                  {"transfer read non-blocking+finish" + size, true},
                  {"transfer map write-invalidate+memset+unmap" + size, true},
                  {"transfer map read+compare+unmap" + size, true}};
  measure.prepare = [requested](Platform& platform, Outcome& outcome) -> std::unique_ptr<Trial> {
    size_t bytes = requested;
    while (bytes > platform.max_allocation && bytes > 4096) bytes /= 2;
    auto trial = std::make_unique<TransferTrial>(platform, bytes);
    const cl_int error = CreateBuffer(platform, CL_MEM_READ_WRITE, bytes, nullptr, trial->buffer);
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
    return trial;
  };
  measures.push_back(std::move(measure));
}

}  // namespace vkcl_bench
