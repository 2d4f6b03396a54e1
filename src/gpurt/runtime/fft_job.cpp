// The FFT job of FFT/SMLP Algorithm 1 on a real GPU (see fft_job.hpp). Written to be small
// and obviously correct rather than fast: it is what scripts/gpu-check runs on a GPU machine.
// Plain C++20 with the CUDA runtime and cuFFT host APIs; the one device kernel (the §III-C
// interference) is in fft_interfere.cu, which nvcc compiles.
#include <cuda_runtime.h>
#include <cufft.h>

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "gpurt/core/cuda_probe.hpp"
#include "gpurt/runtime/fft_interfere.hpp"
#include "gpurt/runtime/fft_job.hpp"
#include "gpurt/runtime/lock.hpp"
#include "gpurt/runtime/partition.hpp"

namespace gpurt {

namespace {

using Clock = std::chrono::steady_clock;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(fmt::format("FFT job: {}: {}", what, cudaGetErrorString(status)));
}
void check(cufftResult status, const char* what) {
  if (status != CUFFT_SUCCESS)
    throw Error(fmt::format("FFT job: {}: cuFFT error {}", what, static_cast<int>(status)));
}

Nanos since(Clock::time_point a, Clock::time_point b) { return std::chrono::duration_cast<Nanos>(b - a); }

// One task's resources (Alg. 1): pinned host buffers, device buffers, a plan made once, and
// the task's own unrestricted stream for copies (and for the exec under BE).
class FftTask {
 public:
  FftTask(int log2_size, int batch, const std::vector<std::complex<float>>& input) {
    _points = (std::size_t{1} << log2_size) * static_cast<std::size_t>(batch);
    _bytes = _points * sizeof(cufftComplex);
    check(cudaStreamCreateWithFlags(&_stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaMallocHost(&_host_in, _bytes), "cudaMallocHost");
    check(cudaMallocHost(&_host_out, _bytes), "cudaMallocHost");
    check(cudaMalloc(&_dev_in, _bytes), "cudaMalloc");
    check(cudaMalloc(&_dev_out, _bytes), "cudaMalloc");
    for (std::size_t i = 0; i < _points; ++i) {
      const std::complex<float> v = input.empty() ? std::complex<float>{} : input[i % input.size()];
      _host_in[i].x = v.real();
      _host_in[i].y = v.imag();
    }
    check(cufftPlan1d(&_plan, 1 << log2_size, CUFFT_C2C, batch), "cufftPlan1d");
  }
  ~FftTask() {
    cufftDestroy(_plan);
    cudaFree(_dev_out);
    cudaFree(_dev_in);
    cudaFreeHost(_host_out);
    cudaFreeHost(_host_in);
    cudaStreamDestroy(_stream);
  }
  FftTask(const FftTask&) = delete;
  FftTask& operator=(const FftTask&) = delete;

  // Lines 2-5 of Alg. 1.
  void copy_in() {
    check(cudaMemcpyAsync(_dev_in, _host_in, _bytes, cudaMemcpyHostToDevice, _stream), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(_stream), "cudaStreamSynchronize");
  }
  // Line 9-10 on `stream` (the task's own under BE, the partition's under SMLP).
  void exec(cudaStream_t stream) {
    check(cufftSetStream(_plan, stream), "cufftSetStream");
    check(cufftExecC2C(_plan, _dev_in, _dev_out, CUFFT_FORWARD), "cufftExecC2C");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  // Lines 13-14.
  void copy_out() {
    check(cudaMemcpyAsync(_host_out, _dev_out, _bytes, cudaMemcpyDeviceToHost, _stream), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(_stream), "cudaStreamSynchronize");
  }
  cudaStream_t stream() const { return _stream; }

 private:
  std::size_t _points = 0, _bytes = 0;
  cudaStream_t _stream = nullptr;
  cufftComplex *_host_in = nullptr, *_host_out = nullptr, *_dev_in = nullptr, *_dev_out = nullptr;
  cufftHandle _plan = 0;
};

// cuFFT's kernels are not written to cooperate with persistent-thread pinning, so only the
// hardware-enforced backends restrict them: libsmctrl (TPC masks), else green contexts.
std::unique_ptr<Partitioner> fft_partitioner(int device) {
  std::string why;
  for (PartitionKind kind : {PartitionKind::libsmctrl, PartitionKind::green_context}) {
    try {
      return make_partitioner(kind, device);
    } catch (const PartitionError& e) {
      why += fmt::format(" {}: {};", to_string(kind), e.what());
    }
  }
  throw Error("FFT job: no hardware partition backend for cuFFT:" + why);
}

// A shared partitioner: Partitioner::stream is not thread-safe.
struct SharedPartitioner {
  std::unique_ptr<Partitioner> p;
  std::mutex m;
  std::set<std::pair<cudaStream_t, int>> seen;  // (stream, FFT size) pairs run before
  // The stream of `mask`; *cold says whether no FFT of 2^log2_size ran on it before (its green
  // context, stream and cuFFT kernels are then made or loaded by the next execution).
  cudaStream_t stream(const gpurt_mask& mask, int log2_size = 0, bool* cold = nullptr) {
    std::lock_guard<std::mutex> g(m);
    const auto s = static_cast<cudaStream_t>(p->stream(mask));
    const bool fresh = seen.emplace(s, log2_size).second;
    if (cold != nullptr) *cold = fresh;
    return s;
  }
};

// The experiment's partitioner of `device`, made once and kept for the process: a unit set's
// green context, stream and lazily loaded cuFFT kernels cost milliseconds the first time, which
// a fresh partitioner per trial would charge to that trial's SMLP jobs. Never destroyed (the
// CUDA objects in it must not be released after the driver has shut down at exit).
SharedPartitioner& tasks_partitioner(int device) {
  static std::mutex m;
  static std::map<int, SharedPartitioner*> by_device;
  std::lock_guard<std::mutex> g(m);
  SharedPartitioner*& p = by_device[device];
  if (p == nullptr) {
    auto made = std::make_unique<SharedPartitioner>();
    made->p = fft_partitioner(device);
    p = made.release();
  }
  return *p;
}

gpurt_mask units_mask(int first, int count) {
  std::vector<int> units;
  for (int u = first; u < first + count; ++u) units.push_back(u);
  return mask_of(units);
}

Platform device_platform(int device, const Partitioner& part) {
  const ProbeResult probe = probe_gpus();
  if (device < 0 || device >= static_cast<int>(probe.devices.size()))
    throw Error(fmt::format("FFT job: no CUDA device {} ({})", device, probe.reason));
  const DeviceInfo& d = probe.devices[static_cast<std::size_t>(device)];
  Platform p;
  p.id = fmt::format("cuda{}", device);
  p.name = d.name;
  // The SMs the partitioner can grant, not the device's: an H200's green contexts form 15
  // groups of 8 of its 132 SMs (the groups follow the GPCs), so H = 15, and SMLP jobs never
  // run on the other 12 (BE jobs, which take no lock, use all 132).
  p.sms = part.units() * part.unit_sms();
  p.max_threads = d.max_threads_per_sm;
  p.max_blocks = d.max_blocks_per_sm;
  p.registers = d.registers_per_sm;
  p.shared_memory = d.shared_memory_per_sm;
  p.max_threads_per_block = d.max_threads_per_block;
  p.partition_unit = part.unit_sms();
  return p;
}

}  // namespace

FftGpuTasksResult run_fft_tasks_gpu(const FftGpuTasksOptions& o) {
  check(cudaSetDevice(o.device), "cudaSetDevice");
  SharedPartitioner* part = nullptr;
  std::unique_ptr<SmlpLock> lock;
  const std::string name = fmt::format("gpurt-fft-{}", ::getpid());
  // The lock's shared memory goes on every way out (a CUDA or cuFFT error in the warm-up or a
  // job throws), not only the normal one: unmapping alone would leave it in /dev/shm.
  struct Unlink {
    const std::string& name;
    bool armed = false;
    ~Unlink() {
      if (armed) (void)SmlpLock::unlink(name);
    }
  } unlink_lock{name};
  if (o.smlp) {
    part = &tasks_partitioner(o.device);
    lock = std::make_unique<SmlpLock>(name, part->p->units());
    unlink_lock.armed = true;
    // Untimed: one execution on every contiguous unit set of an allowed size (every set the
    // lock can grant when S_i = {1}, and the sets it grants while the GPU is otherwise idle).
    // On an H200 a first grant of a set cost 10-80 ms (green context, stream, cuFFT's kernels
    // loaded into the new context) and stalled the other tasks' jobs past their bounds.
    FftTask warm(o.log2_size, o.batch, o.input);
    for (int k : o.allowed) {
      for (int first = 0; first + k <= part->p->units(); ++first) {
        bool cold = false;
        const cudaStream_t st = part->stream(units_mask(first, k), o.log2_size, &cold);
        if (cold) warm.exec(st);
      }
    }
  }
  FftGpuTasksResult result;
  std::mutex result_mutex;
  std::latch ready(o.tasks + 1);
  Clock::time_point start;
  std::atomic<bool> failed{false};
  std::string failure;
  std::vector<std::thread> threads;
  for (int t = 0; t < o.tasks; ++t) {
    threads.emplace_back([&] {
      bool arrived = false;
      try {
        check(cudaSetDevice(o.device), "cudaSetDevice");
        FftTask task(o.log2_size, o.batch, o.input);
        task.exec(task.stream());  // untimed: loads cuFFT's kernels before the start
        if (!o.copy_each_job) task.copy_in();
        arrived = true;
        ready.arrive_and_wait();  // §IV: the N threads start together
        for (int j = 0; j < o.jobs && !failed; ++j) {
          if (o.copy_each_job) task.copy_in();
          const auto requested = Clock::now();
          int units = 0;
          if (o.smlp) {
            SmlpGuard guard = lock->lock(o.allowed);  // Alg. 1 line 7
            units = guard.units();
            bool cold = false;
            task.exec(part->stream(guard.mask(), o.log2_size, &cold));  // lines 8-10
            if (cold) {
              std::lock_guard<std::mutex> g(result_mutex);
              ++result.cold_grants;
            }
            guard.release();  // line 11
          } else {
            task.exec(task.stream());
          }
          const auto done = Clock::now();
          if (o.copy_each_job || j + 1 == o.jobs) task.copy_out();
          std::lock_guard<std::mutex> g(result_mutex);
          result.responses.push_back(since(requested, done));
          if (o.smlp) result.granted.push_back(units);
          result.makespan = std::max(result.makespan, since(start, done));
        }
      } catch (const std::exception& e) {
        {
          std::lock_guard<std::mutex> g(result_mutex);
          if (!failed.exchange(true)) failure = e.what();
        }
        if (!arrived) ready.count_down();  // never leave the others waiting at the start
      }
    });
  }
  start = Clock::now();
  ready.arrive_and_wait();
  for (std::thread& th : threads) th.join();
  if (failed) throw Error(failure);
  return result;
}

SmlpSystem profile_fft_gpu(const std::vector<int>& log2_sizes, int batch, int runs, int copies, double rho,
                           int device, int placements, std::vector<PlacementSpread>* spreads) {
  check(cudaSetDevice(device), "cudaSetDevice");
  SharedPartitioner part;
  part.p = fft_partitioner(device);
  const int h = part.p->units();
  SmlpSystem system;
  system.platform = device_platform(device, *part.p);
  system.time_unit = TimeUnit::us;
  system.rho = rho;
  const std::int64_t n = std::int64_t{1} << 24;  // 64 MiB of floats: beyond the L2 of any GPU here
  float* buffer = nullptr;
  check(cudaMalloc(&buffer, static_cast<std::size_t>(n) * sizeof(float)), "cudaMalloc");
  check(cudaMemset(buffer, 0, static_cast<std::size_t>(n) * sizeof(float)), "cudaMemset");
  // The worst of `runs` executions on units first..first+k-1, every other unit interfering.
  const auto profile_set = [&](FftTask& task, int first, int k) {
    std::atomic<bool> stop{false};
    // The interferer's CUDA error, if any: CUDA's last error is per host thread, so the thread
    // reports it here, and a profile whose interference stopped is an error, not an optimistic
    // WCET.
    std::atomic<int> interference_error{0};
    std::thread interferer;
    // Both streams before the thread starts: a stream that cannot be made then throws with no
    // thread to join.
    const cudaStream_t mine = part.stream(units_mask(first, k));
    if (k < h) {
      // §III-C: every unit the FFT does not hold runs the interfering kernel, relaunched until
      // the k-unit runs are done.
      std::vector<int> others;
      for (int u = 0; u < h; ++u)
        if (u < first || u >= first + k) others.push_back(u);
      const cudaStream_t s = part.stream(mask_of(others));
      const int blocks = (h - k) * part.p->unit_sms() * 4;
      interferer = std::thread([&, s, blocks] {
        cudaSetDevice(device);
        while (!stop) {
          if (const int e = launch_interference(s, buffer, n, blocks, 1'000'000); e != 0) {
            interference_error = e;
            break;
          }
          if (const cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess) {
            interference_error = static_cast<int>(e);
            break;
          }
        }
      });
    }
    Nanos worst{0};
    try {
      task.copy_in();
      task.exec(mine);  // warm-up, not counted
      for (int r = 0; r < runs; ++r) {
        const auto a = Clock::now();
        task.exec(mine);
        worst = std::max(worst, since(a, Clock::now()));
      }
    } catch (...) {
      stop = true;
      if (interferer.joinable()) interferer.join();
      throw;
    }
    stop = true;
    if (interferer.joinable()) interferer.join();
    check(static_cast<cudaError_t>(interference_error.load()), "interfering kernel");
    return worst;
  };
  try {
    for (int log2_size : log2_sizes) {
      FftTask task(log2_size, batch, {});
      std::vector<Nanos> wcet;
      for (int k = 1; k <= h; ++k) {
        PlacementSpread spread{log2_size, k, 0, Nanos::max(), Nanos{0}};
        for (int first : placement_offsets(h, k, placements)) {
          const Nanos worst = profile_set(task, first, k);
          spread.best = std::min(spread.best, worst);
          spread.worst = std::max(spread.worst, worst);
          ++spread.placements;
        }
        wcet.push_back(spread.worst);
        if (spreads != nullptr) spreads->push_back(spread);
      }
      for (int c = 1; c <= copies; ++c) {
        SmlpTask t;
        t.name = copies == 1 ? fmt::format("fft_2^{}", log2_size) : fmt::format("fft_2^{}_{}", log2_size, c);
        t.wcet_by_units = wcet;
        system.tasks.push_back(std::move(t));
      }
    }
  } catch (...) {
    cudaFree(buffer);
    throw;
  }
  cudaFree(buffer);
  return system;
}

}  // namespace gpurt
