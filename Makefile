# Top-level entry points. `make demo` and `make test` set up, build into ./build, and run.
BUILD      ?= build
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
GPURT      := ./$(BUILD)/gpurt

.PHONY: all setup configure build demo test sanitize tsan install-check fuzz clean docs-check

all: build

setup:
	@scripts/setup

configure: setup
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_ARGS)

# Everything: the library, the CLI, every test and benchmark.
build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job on bundled examples: a bound (SMLP analysis), a prediction (the simulator on the
# Dissertation's cutting-ahead experiment) and its timeline picture, then `gpurt report` of one
# task system (every analysis and policy, text and HTML). Builds only what it runs:
# the `gpurt` program (target gpurt_cli) and the library it links, no tests or benchmarks.
demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target gpurt_cli
	$(GPURT) analyze smlp examples/smlp/cufft-rtx3060ti.json
	@echo
	mkdir -p $(BUILD)/demo
	$(GPURT) simulate examples/sim/cut_ahead.json --platform jetson-tx2 --out $(BUILD)/demo \
	  --svg $(BUILD)/demo/timeline.svg --perfetto $(BUILD)/demo/timeline.perfetto.json
	@echo
	@echo "timeline picture: $(BUILD)/demo/timeline.svg (interactive: load $(BUILD)/demo/timeline.perfetto.json in ui.perfetto.dev)"
	@echo
	$(GPURT) report examples/system/mixed.system.json --html $(BUILD)/demo/report.html
	@echo "HTML report: $(BUILD)/demo/report.html"

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The commands README.md and docs/*.md show, run and checked against the exit status and the
# numbers the docs quote (scripts/docs-check; seconds). Needs only the gpurt program.
docs-check: configure
	cmake --build $(BUILD) -j $(JOBS) --target gpurt_cli
	scripts/docs-check --gpurt $(GPURT)

# AddressSanitizer + UndefinedBehaviorSanitizer build of the whole suite (CPU code only); Debug, with
# the library's own code at -O1 (CMakeLists.txt, GPURT_SANITIZE). Eight calibration round trips
# that run the same fitting code as the three kept (other presets, seeds and hidden values; 7.5 min
# of CPU there) are left out (docs/testing.md "Sanitizers"); SANITIZE_SKIP= runs them too.
SANITIZE_SKIP ?= ^(Calibrate[.](RoundTripSeparatesTheLaunchDrawFromTheBlockDraw|RoundTripOnTheH100SeparatesTheSwitchFromCoResidence|RoundTripOfASecondHiddenSetWithAnotherSeed|IdealMeasurementsFitTheIdealModel|RoundTripWithoutSmMasksFitsWhatGpuCheckFits)|CalibrateAmd[.](RoundTripWithoutALockAndWithSlowDispatch|RoundTripFromThePresetMeasuresTheLoneKernelBound)|CalibrateCli[.]TheH200PresetsBandwidthIsWhatItsMeasurementsGive)$$
sanitize: setup
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPURT_SANITIZE=address,undefined \
	      -DGPURT_CUDA=OFF -DGPURT_PERF=OFF $(CMAKE_ARGS)
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS) $(if $(SANITIZE_SKIP),-E '$(SANITIZE_SKIP)')

# Installs into a scratch prefix and builds a program against it with CMake and pkg-config.
install-check: build
	scripts/install-check $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-fuzz build-tsan

# Coverage-guided fuzzing of the file readers (clang + libFuzzer); FUZZ_SECONDS per target.
# Each target starts from the bundled examples of its format (system: those of every task format).
FUZZ_SECONDS ?= 60
FUZZERS := smlp:examples/smlp scenario:examples/sim rtgpu:examples/rtgpu pbs:examples/pbs fifo:examples/fifo platform:examples/platforms results:fuzz/corpus/results sweep_resume:fuzz/corpus/sweep \
  system:examples/system,examples/smlp,examples/rtgpu,examples/pbs,examples/fifo
fuzz: setup
	CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPURT_FUZZ=ON \
	      -DGPURT_CUDA=OFF -DGPURT_TESTS=OFF -DGPURT_PERF=OFF -DGPURT_SANITIZE=address,undefined,fuzzer-no-link
	cmake --build build-fuzz -j $(JOBS) --target $(foreach f,$(FUZZERS),fuzz_$(firstword $(subst :, ,$(f)))) fuzz_csv
	set -e; for f in $(FUZZERS); do name=$${f%%:*}; dir=$${f#*:}; \
	  mkdir -p build-fuzz/corpus-$$name; for d in $$(echo $$dir | tr , ' '); do cp $$d/*.json build-fuzz/corpus-$$name/; done; \
	  ./build-fuzz/fuzz/fuzz_$$name build-fuzz/corpus-$$name -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1; done
	mkdir -p build-fuzz/corpus-csv && cp docs/data/*.csv build-fuzz/corpus-csv/
	./build-fuzz/fuzz/fuzz_csv build-fuzz/corpus-csv -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1

# ThreadSanitizer build of the runtime (lock) tests: threads and forked processes on one lock,
# the full 120 000 stress cycles (~10 s on 2 cores; GPURT_STRESS_SCALE=0.25 shortens them).
tsan: setup
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPURT_SANITIZE=thread \
	      -DGPURT_CUDA=OFF -DGPURT_PERF=OFF $(CMAKE_ARGS)
	cmake --build build-tsan -j $(JOBS) --target test_runtime_locks test_runtime_partition
	TSAN_OPTIONS=halt_on_error=1 GPURT_STRESS_SCALE=$(or $(GPURT_STRESS_SCALE),1) \
	  ctest --test-dir build-tsan --output-on-failure -j $(JOBS) -R '^(Smlp|Kx|Partition|AmdCuMask|ProcessAlive|ShmMutex)'
