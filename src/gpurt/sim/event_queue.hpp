// The simulator's pending events: a 4-ary min-heap ordered by (time, seq).
//
// The order is total (seq is unique), so any correct priority queue pops the same sequence and
// the simulation is the same; a 4-ary heap has half the levels of a binary one, and the four
// children of a node share one or two cache lines, so a pop (the simulator's hottest step)
// compares more but moves and misses less. Measured in docs/performance.md.
#pragma once

#include <cstddef>
#include <vector>

namespace gpurt::sim {

template <class E>
class EventQueue {
 public:
  [[nodiscard]] bool empty() const noexcept { return _heap.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return _heap.size(); }
  [[nodiscard]] const E& top() const noexcept { return _heap.front(); }

  void push(const E& e) {
    _heap.push_back(e);
    std::size_t i = _heap.size() - 1;
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!before(e, _heap[parent])) break;
      _heap[i] = _heap[parent];
      i = parent;
    }
    _heap[i] = e;
  }

  void pop() {
    const E last = _heap.back();
    _heap.pop_back();
    const std::size_t n = _heap.size();
    if (n == 0) return;
    std::size_t i = 0;
    while (true) {  // move the hole down to where `last` belongs
      const std::size_t first = kArity * i + 1;
      if (first >= n) break;
      const std::size_t end = first + kArity < n ? first + kArity : n;
      std::size_t best = first;
      for (std::size_t c = first + 1; c < end; ++c)
        if (before(_heap[c], _heap[best])) best = c;
      if (!before(_heap[best], last)) break;
      _heap[i] = _heap[best];
      i = best;
    }
    _heap[i] = last;
  }

 private:
  static constexpr std::size_t kArity = 4;
  static bool before(const E& x, const E& y) noexcept {
    return x.time != y.time ? x.time < y.time : x.seq < y.seq;
  }
  std::vector<E> _heap;
};

}  // namespace gpurt::sim
