#include "gpurt/bench/barrier.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <cstdint>

#include "gpurt/core/error.hpp"

namespace gpurt::detail {

namespace {

class ThreadBarrier final : public Barrier {
 public:
  ThreadBarrier(int n, BarrierCompletion c) : _barrier(n, c) {}
  void arrive_and_wait() override { _barrier.arrive_and_wait(); }
  void arrive_and_drop() override { _barrier.arrive_and_drop(); }

 private:
  std::barrier<BarrierCompletion> _barrier;
};

struct SharedState {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int expected, arrived;
  int broken;
  std::uint64_t generation;
};

class ProcessBarrier final : public Barrier {
 public:
  ProcessBarrier(int n, BarrierCompletion c) : _completion(c) {
    void* p = mmap(nullptr, sizeof(SharedState), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw Error("bench: mmap of a process barrier failed");
    _s = static_cast<SharedState*>(p);
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&_s->mutex, &ma);
    pthread_mutexattr_destroy(&ma);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    pthread_cond_init(&_s->cond, &ca);
    pthread_condattr_destroy(&ca);
    _s->expected = n;
    _s->arrived = 0;
    _s->broken = 0;
    _s->generation = 0;
  }
  ~ProcessBarrier() override { munmap(_s, sizeof(SharedState)); }
  ProcessBarrier(const ProcessBarrier&) = delete;
  ProcessBarrier& operator=(const ProcessBarrier&) = delete;

  void arrive_and_wait() override {
    pthread_mutex_lock(&_s->mutex);
    const std::uint64_t gen = _s->generation;
    if (!_s->broken && ++_s->arrived >= _s->expected) {
      complete();
    } else {
      while (gen == _s->generation && !_s->broken) pthread_cond_wait(&_s->cond, &_s->mutex);
    }
    const bool broken = _s->broken != 0 && gen == _s->generation;
    pthread_mutex_unlock(&_s->mutex);
    if (broken) throw Error(kBrokenBarrier);
  }

  void arrive_and_drop() override {
    pthread_mutex_lock(&_s->mutex);
    --_s->expected;
    if (!_s->broken && _s->arrived > 0 && _s->arrived >= _s->expected) complete();
    pthread_mutex_unlock(&_s->mutex);
  }

  void break_all() noexcept override {
    pthread_mutex_lock(&_s->mutex);
    _s->broken = 1;
    pthread_cond_broadcast(&_s->cond);
    pthread_mutex_unlock(&_s->mutex);
  }

 private:
  void complete() {  // mutex held
    _completion();
    _s->arrived = 0;
    ++_s->generation;
    pthread_cond_broadcast(&_s->cond);
  }

  BarrierCompletion _completion;
  SharedState* _s = nullptr;
};

}  // namespace

std::unique_ptr<Barrier> make_thread_barrier(int participants, BarrierCompletion completion) {
  return std::make_unique<ThreadBarrier>(participants, completion);
}

std::unique_ptr<Barrier> make_process_barrier(int participants, BarrierCompletion completion) {
  return std::make_unique<ProcessBarrier>(participants, completion);
}

}  // namespace gpurt::detail
