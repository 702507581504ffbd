# The two set-up commands of README.md:
#   make test   install what is missing, build, run the whole test suite
#   make demo   install what is missing, build, profile the MPI solver demo end to end
# Both work on a fresh Debian 12 machine (scripts/deps.sh installs the rest).

SHELL := /bin/bash
CARGO ?= cargo
# llvm-sys 191 links the Debian LLVM 19 dynamically (prefer-dynamic).
LLVM_ENV = LLVM_SYS_191_PREFIX=$$(llvm-config-19 --prefix)
# mpirun refuses root unless told; CI runs as root.
MPI_ENV = OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

.PHONY: deps build test demo lint bench fuzz clean

deps:
	bash scripts/deps.sh
	bash scripts/test-tools.sh

build: deps
	$(LLVM_ENV) $(CARGO) build --workspace --tests --bins

test: build
	$(LLVM_ENV) $(MPI_ENV) $(CARGO) test --workspace

demo: deps
	$(LLVM_ENV) $(CARGO) build --release --bins
	$(LLVM_ENV) $(MPI_ENV) bash scripts/demo.sh

lint: deps
	$(CARGO) fmt --all --check
	$(LLVM_ENV) $(CARGO) clippy --workspace --all-targets -- -D warnings

bench: deps
	$(LLVM_ENV) $(CARGO) bench --workspace
	$(LLVM_ENV) bash bench/analyze_shapes.sh

fuzz:
	bash scripts/fuzz.sh

clean:
	$(CARGO) clean
