// transfer (GL202, GL204, GL205): a host-to-device copy of one fp32 batch (batch_shape) from
// pageable vs pinned memory: the copy time and bandwidth (host wall clock around
// cudaMemcpyAsync + stream sync, as `.to(device)` does), the share of the link's peak (a
// 256 MiB pinned copy), the time the host is blocked inside the copy call, and whether the
// copy overlaps a kernel running on another stream.
//
// The pageable batch is a fresh one each time, as a DataLoader's is: its workers hand each
// batch over in shared memory that the training process maps anew, so the copy's first touch
// of every page faults it in. A warm buffer copied again and again measures a cheaper copy
// than any training loop makes. The pinned batch is reused, as the pin-memory thread reuses
// its host allocator's blocks.

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "verifier/experiments/cuda_util.h"
#include "verifier/experiments/experiment.h"
#include "verifier/harness/measure.h"

namespace gpulint::verifier {
namespace {

// A few batch-sized shared-memory files, each written once; every copy maps one afresh.
class FreshBatches {
 public:
  FreshBatches(size_t bytes, int count) : bytes_(bytes) {
    try {
      for (int i = 0; i < count; ++i) {
        const int fd = memfd_create("gpulint-batch", MFD_CLOEXEC);
        if (fd < 0) throw std::runtime_error("memfd_create failed for a fresh pageable batch");
        fds_.push_back(fd);
        if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
          throw std::runtime_error("cannot size a fresh pageable batch");
        }
        Mapping writer(fd, bytes);
        std::memset(writer.data(), 1, bytes);
      }
    } catch (...) {
      close_all();
      throw;
    }
  }
  ~FreshBatches() { close_all(); }
  FreshBatches(const FreshBatches&) = delete;
  FreshBatches& operator=(const FreshBatches&) = delete;

  class Mapping {
   public:
    Mapping(int fd, size_t bytes) : bytes_(bytes) {
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (p == MAP_FAILED) throw std::runtime_error("cannot map a fresh pageable batch");
      data_ = static_cast<char*>(p);
    }
    ~Mapping() { munmap(data_, bytes_); }
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    char* data() const { return data_; }

   private:
    char* data_ = nullptr;
    size_t bytes_;
  };

  // The next batch, mapped now: none of its pages is in this process's page tables yet.
  std::unique_ptr<Mapping> next() {
    next_ = (next_ + 1) % fds_.size();
    return std::make_unique<Mapping>(fds_[next_], bytes_);
  }

 private:
  void close_all() {
    for (int fd : fds_) close(fd);
    fds_.clear();
  }

  size_t bytes_;
  std::vector<int> fds_;
  size_t next_ = 0;
};

std::string percent(double share) {
  return std::to_string(static_cast<int>(share * 100 + 0.5)) + "%";
}

}  // namespace

// Not pinned to one core: a pageable copy's driver staging read 6.2 ms pinned, 5.7 unpinned,
// with a spread three times wider pinned (PyTorch on an H100), and a program's copy is not pinned.
void run_transfer(const Params& p, const DeviceInfo&, ExperimentResult& out) {
  const size_t bytes = static_cast<size_t>(p.batch_bytes());
  Stream copy_stream, compute_stream;
  DeviceBuffer<char> device(bytes);
  PinnedBuffer<char> pinned(bytes);
  FreshBatches fresh(bytes, 3);
  std::memset(pinned.get(), 1, bytes);
  StableOptions options;
  options.budget_s = p.budget_s;

  // `src` null: a fresh pageable batch, mapped outside the timed part.
  auto copy_ms = [&](const char* src) {
    return [&, src] {
      const std::unique_ptr<FreshBatches::Mapping> batch = src ? nullptr : fresh.next();
      const char* from = src ? src : batch->data();
      copy_stream.sync();
      const double t0 = now_us();
      GPULINT_CUDA(
          cudaMemcpyAsync(device.get(), from, bytes, cudaMemcpyHostToDevice, copy_stream.get()));
      copy_stream.sync();
      return (now_us() - t0) / 1000.0;
    };
  };
  const Measurement pageable_ms =
      measure("h2d.pageable", "copy from a fresh pageable batch", "ms", copy_ms(nullptr), options);
  const Measurement pinned_ms =
      measure("h2d.pinned", "copy from pinned memory", "ms", copy_ms(pinned.get()), options);

  // The link's peak: a pinned copy large enough that per-copy overhead vanishes.
  const size_t peak_bytes = size_t{256} << 20;
  double peak_gbs = 0;
  {
    DeviceBuffer<char> big(peak_bytes);
    PinnedBuffer<char> big_host(peak_bytes);
    std::memset(big_host.get(), 1, peak_bytes);
    const Measurement peak = measure(
        "h2d.peak", "peak: 256 MiB pinned copy", "ms",
        [&] {
          copy_stream.sync();
          const double t0 = now_us();
          GPULINT_CUDA(cudaMemcpyAsync(big.get(), big_host.get(), peak_bytes,
                                       cudaMemcpyHostToDevice, copy_stream.get()));
          copy_stream.sync();
          return (now_us() - t0) / 1000.0;
        },
        options);
    peak_gbs = peak_bytes / (peak.stats.median * 1e6);
    out.measurements.push_back(peak);
  }
  const double gb = static_cast<double>(bytes) / 1e9;
  out.measurements.push_back(pageable_ms);
  out.measurements.push_back(pinned_ms);
  const Measurement pageable_gbs =
      rate_of(pageable_ms, gb * 1000.0, "h2d.pageable_gbs", "bandwidth from pageable", "GB/s");
  const Measurement pinned_gbs =
      rate_of(pinned_ms, gb * 1000.0, "h2d.pinned_gbs", "bandwidth from pinned", "GB/s");
  out.measurements.push_back(pageable_gbs);
  out.measurements.push_back(pinned_gbs);
  out.notes.push_back("share of the link's measured peak (" +
                      std::to_string(static_cast<int>(peak_gbs)) + " GB/s): pageable " +
                      percent(pageable_gbs.stats.median / peak_gbs) + ", pinned " +
                      percent(pinned_gbs.stats.median / peak_gbs));

  // Host time inside the call: what the Python thread loses before it can queue more work.
  auto host_ms = [&](const char* src, bool blocking) {
    return [&, src, blocking] {
      const std::unique_ptr<FreshBatches::Mapping> batch = src ? nullptr : fresh.next();
      const char* from = src ? src : batch->data();
      copy_stream.sync();
      const double t0 = now_us();
      if (blocking) {
        GPULINT_CUDA(cudaMemcpy(device.get(), from, bytes, cudaMemcpyHostToDevice));
      } else {
        GPULINT_CUDA(
            cudaMemcpyAsync(device.get(), from, bytes, cudaMemcpyHostToDevice, copy_stream.get()));
      }
      const double t = (now_us() - t0) / 1000.0;
      copy_stream.sync();
      return t;
    };
  };
  out.measurements.push_back(measure("host.pageable_async",
                                     "host blocked: non_blocking copy from a fresh pageable batch",
                                     "ms", host_ms(nullptr, false), options));
  out.measurements.push_back(measure("host.pinned_async",
                                     "host blocked: non_blocking copy from pinned", "ms",
                                     host_ms(pinned.get(), false), options));
  out.measurements.push_back(measure("host.pinned_sync", "host blocked: blocking copy from pinned",
                                     "ms", host_ms(pinned.get(), true), options));

  // Overlap: a kernel as long as the pinned copy on another stream, then the copy.
  const double cycles_per_us = spin_cycles_per_us(compute_stream.get());
  const long long cycles = static_cast<long long>(pinned_ms.stats.median * 1000.0 * cycles_per_us);
  auto kernel_ms = [&] {
    compute_stream.sync();
    const double t0 = now_us();
    launch_spin(cycles, nullptr, compute_stream.get());
    compute_stream.sync();
    return (now_us() - t0) / 1000.0;
  };
  const Measurement kernel = measure("overlap.kernel", "kernel alone", "ms", kernel_ms, options);
  out.measurements.push_back(kernel);
  auto both_ms = [&](const char* src) {
    return [&, src] {
      const std::unique_ptr<FreshBatches::Mapping> batch = src ? nullptr : fresh.next();
      const char* from = src ? src : batch->data();
      compute_stream.sync();
      copy_stream.sync();
      const double t0 = now_us();
      launch_spin(cycles, nullptr, compute_stream.get());
      GPULINT_CUDA(
          cudaMemcpyAsync(device.get(), from, bytes, cudaMemcpyHostToDevice, copy_stream.get()));
      copy_stream.sync();
      compute_stream.sync();
      return (now_us() - t0) / 1000.0;
    };
  };
  for (const auto& [name, src, alone] :
       {std::tuple{"pageable", static_cast<const char*>(nullptr), &pageable_ms},
        std::tuple{"pinned", static_cast<const char*>(pinned.get()), &pinned_ms}}) {
    const Measurement both =
        measure(std::string("overlap.") + name, std::string("kernel + copy from ") + name, "ms",
                both_ms(src), options);
    const double serial = kernel.stats.median + alone->stats.median;
    const double hidden =
        (serial - both.stats.median) / std::min(kernel.stats.median, alone->stats.median);
    out.notes.push_back(std::string("copy from ") + name + " overlaps the kernel: " +
                        percent(std::clamp(hidden, 0.0, 1.0)) + " of the shorter one hidden");
    out.measurements.push_back(both);
  }
  out.parameters.emplace_back("batch_shape", format_shape(p.batch_shape));
  out.parameters.emplace_back("batch_bytes", std::to_string(bytes));
}

}  // namespace gpulint::verifier
