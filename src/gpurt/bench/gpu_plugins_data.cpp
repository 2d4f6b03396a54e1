// Plugins of the gpu backend that compute on data: matrix_multiply and random_walk (the
// Dissertation's §4.2.1 and §3.5 workloads, in gpurt's own kernels) and cufft (a 1-D
// complex-to-complex FFT with the CUDA toolkit's cuFFT; its blocks cannot be instrumented,
// so it reports kernel-level times only: cuda_launch_times, no block_times).
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "gpurt/bench/gpu_util.hpp"

namespace gpurt::gpu {

namespace {

// matrix_multiply: as the simulator's program (model/scenario.cpp): copy A and B in, the
// kernel, copy C out, inside execute — unless skip_copy, when A and B are copied once.
class MatrixMultiplyPlugin final : public BenchPlugin {
 public:
  void initialize(const PluginContext& ctx) override {
    _ctx = ctx;
    const ScenarioInstance& in = *ctx.instance;
    _elements = static_cast<std::size_t>(in.matrix_width) * static_cast<std::size_t>(in.matrix_width);
    const std::size_t bytes = _elements * sizeof(float);
    check(cudaMallocHost(&_host, 3 * bytes), "cudaMallocHost (matrices)");
    check(cudaMalloc(&_a, bytes), "cudaMalloc (matrix)");
    check(cudaMalloc(&_b, bytes), "cudaMalloc (matrix)");
    check(cudaMalloc(&_c, bytes), "cudaMalloc (matrix)");
    // Values in [0, 1) as in §4.2.1; mt19937's raw output is the same on every standard library.
    std::mt19937 rng(1337);
    for (std::size_t i = 0; i < 2 * _elements; ++i) _host[i] = static_cast<float>(rng() >> 8) / 16777216.0f;
    _records = std::make_unique<RecordBuffer>(in.block_count);
    if (in.skip_copy) copy_inputs(nullptr);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }

  void execute(IterationRecord& it) override {
    const ScenarioInstance& in = *_ctx.instance;
    cudaStream_t s = as_stream(_ctx.stream);
    if (!in.skip_copy) copy_inputs(s);
    KernelRecord r;
    r.name = in.label.empty() ? "matrix_multiply" : in.label;
    r.block_count = in.block_count;
    r.thread_count = in.thread_count;
    r.launch_before = _ctx.now();
    check_launch(
        launch_matrix_multiply(s, in.matrix_width, in.block_x, in.block_y, _a, _b, _c, _records->device()),
        "matrix_multiply launch");
    r.launch_after = _ctx.now();
    if (!in.skip_copy) {
      check(cudaMemcpyAsync(_host + 2 * _elements, _c, _elements * sizeof(float), cudaMemcpyDeviceToHost, s),
            "cudaMemcpyAsync (C)");
    }
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    r.sync_after = _ctx.now();
    it.kernels.push_back(std::move(r));
  }

  void copy_out(IterationRecord& it) override { _records->read(_ctx, it.kernels.front().blocks); }

  void cleanup() override {
    _records.reset();
    cudaFreeHost(_host);
    cudaFree(_a);
    cudaFree(_b);
    cudaFree(_c);
    _host = _a = _b = _c = nullptr;
  }

 private:
  void copy_inputs(cudaStream_t s) {
    const std::size_t bytes = _elements * sizeof(float);
    check(cudaMemcpyAsync(_a, _host, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (A)");
    check(cudaMemcpyAsync(_b, _host + _elements, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (B)");
  }

  PluginContext _ctx;
  std::size_t _elements = 0;
  float* _host = nullptr;
  float *_a = nullptr, *_b = nullptr;
  float* _c = nullptr;
  std::unique_ptr<RecordBuffer> _records;
};

// random_walk: a single random cycle through data_size bytes of 32-bit indices (Sattolo's
// algorithm), so every walk visits the whole buffer in shuffled order; copied once.
class RandomWalkPlugin final : public BenchPlugin {
 public:
  void initialize(const PluginContext& ctx) override {
    _ctx = ctx;
    _length = static_cast<std::uint64_t>(ctx.instance->data_size) / sizeof(std::uint32_t);
    std::vector<std::uint32_t> next(_length);
    for (std::uint64_t i = 0; i < _length; ++i) next[i] = static_cast<std::uint32_t>(i);
    std::mt19937_64 rng(1337);
    for (std::uint64_t i = _length - 1; i > 0; --i) std::swap(next[i], next[rng() % i]);
    check(cudaMalloc(&_next, _length * sizeof(std::uint32_t)), "cudaMalloc (walk buffer)");
    check(cudaMemcpy(_next, next.data(), _length * sizeof(std::uint32_t), cudaMemcpyHostToDevice),
          "cudaMemcpy");
    check(cudaMalloc(&_sink, sizeof(std::uint64_t)), "cudaMalloc (sink)");
    _records = std::make_unique<RecordBuffer>(ctx.instance->block_count);
  }

  void execute(IterationRecord& it) override {
    const ScenarioInstance& in = *_ctx.instance;
    cudaStream_t s = as_stream(_ctx.stream);
    KernelRecord r;
    r.name = in.label.empty() ? "random_walk" : in.label;
    r.block_count = in.block_count;
    r.thread_count = in.thread_count;
    r.launch_before = _ctx.now();
    check_launch(launch_random_walk(s, in.block_count, in.thread_count, _next, _length, in.walk_reads,
                                    _records->device(), _sink),
                 "random_walk launch");
    r.launch_after = _ctx.now();
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    r.sync_after = _ctx.now();
    it.kernels.push_back(std::move(r));
  }

  void copy_out(IterationRecord& it) override { _records->read(_ctx, it.kernels.front().blocks); }

  void cleanup() override {
    _records.reset();
    cudaFree(_next);
    cudaFree(_sink);
    _next = nullptr;
    _sink = nullptr;
  }

 private:
  PluginContext _ctx;
  std::uint64_t _length = 0;
  std::uint32_t* _next = nullptr;
  std::uint64_t* _sink = nullptr;
  std::unique_ptr<RecordBuffer> _records;
};

// cufft: additional_info {"size": 2^p points, "batch": count}, read and checked by the one
// scenario parser (model/scenario.cpp read_cufft), which also gives the simulator its model.
class CufftPlugin final : public BenchPlugin {
 public:
  void initialize(const PluginContext& ctx) override {
    _ctx = ctx;
    const Json& info = ctx.instance->additional_info;
    const std::int64_t size = info.at("size").get<std::int64_t>();
    const std::int64_t batch = info.contains("batch") ? info.at("batch").get<std::int64_t>() : 1;
    _elements = static_cast<std::size_t>(size * batch);
    if (cufftPlan1d(&_plan, static_cast<int>(size), CUFFT_C2C, static_cast<int>(batch)) != CUFFT_SUCCESS) {
      throw Error("cufftPlan1d failed");
    }
    _planned = true;
    if (cufftSetStream(_plan, as_stream(ctx.stream)) != CUFFT_SUCCESS) throw Error("cufftSetStream failed");
    check(cudaMallocHost(&_host, _elements * sizeof(cufftComplex)), "cudaMallocHost (signal)");
    check(cudaMalloc(&_dev, _elements * sizeof(cufftComplex)), "cudaMalloc (signal)");
    for (std::size_t i = 0; i < _elements; ++i) {
      _host[i].x = static_cast<float>(std::cos(0.001 * static_cast<double>(i)));
      _host[i].y = 0.0f;
    }
  }

  void copy_in(IterationRecord& /*it*/) override {
    check(cudaMemcpyAsync(_dev, _host, _elements * sizeof(cufftComplex), cudaMemcpyHostToDevice,
                          as_stream(_ctx.stream)),
          "cudaMemcpyAsync (signal in)");
    check(cudaStreamSynchronize(as_stream(_ctx.stream)), "cudaStreamSynchronize");
  }

  void execute(IterationRecord& it) override {
    KernelRecord r;
    r.name = "cufft";
    r.launch_before = _ctx.now();
    if (cufftExecC2C(_plan, _dev, _dev, CUFFT_FORWARD) != CUFFT_SUCCESS) throw Error("cufftExecC2C failed");
    r.launch_after = _ctx.now();
    check(cudaStreamSynchronize(as_stream(_ctx.stream)), "cudaStreamSynchronize");
    r.sync_after = _ctx.now();
    it.kernels.push_back(std::move(r));
  }

  void copy_out(IterationRecord& /*it*/) override {
    check(cudaMemcpyAsync(_host, _dev, _elements * sizeof(cufftComplex), cudaMemcpyDeviceToHost,
                          as_stream(_ctx.stream)),
          "cudaMemcpyAsync (spectrum out)");
    check(cudaStreamSynchronize(as_stream(_ctx.stream)), "cudaStreamSynchronize");
  }

  void cleanup() override {
    if (_planned) cufftDestroy(_plan);
    _planned = false;
    cudaFreeHost(_host);
    cudaFree(_dev);
    _host = _dev = nullptr;
  }

 private:
  PluginContext _ctx;
  cufftHandle _plan = 0;
  bool _planned = false;
  std::size_t _elements = 0;
  cufftComplex *_host = nullptr, *_dev = nullptr;
};

}  // namespace

void register_data_plugins(PluginRegistry& registry) {
  registry.add("matrix_multiply", [] { return std::make_unique<MatrixMultiplyPlugin>(); });
  registry.add("random_walk", [] { return std::make_unique<RandomWalkPlugin>(); });
  registry.add("cufft", [] { return std::make_unique<CufftPlugin>(); });
}

}  // namespace gpurt::gpu
