# fabrictest — every target installs what it needs, idempotently.
#
#   make run        the emulator standalone on its embedded broker (http://127.0.0.1:5080)
#   make test       every test tier this machine can run (installs its dependencies)
#   make check      the fast loop: go vet, staticcheck, ruff, and go test of the packages a
#                   change touches (against origin/main, else main, else HEAD~), no -race
#   make bench      benchmarks (5 runs each), ending with a summary table against the performance targets
#   make soak       10 minutes of three doors, faults and restarts (SOAK_DURATION), with lost, duplicates, RSS and descriptors
#   make kafka-image  the local image with apache/kafka:3.9.1's contract
#   make emulator-image  the emulator as an image (fabrictest/emulator:local)
#   make cdc-images   PostgreSQL and MariaDB images from Debian's packages, for the CDC sources
#   make kdc-image    an MIT Kerberos KDC from Debian's krb5-kdc, for the Kerberos (GSSAPI) tests

GO        ?= go
ADDR      ?= 127.0.0.1:5080
DATA_DIR  ?= $(CURDIR)/.data
KAFKA     ?= embedded
LOCAL_KAFKA_IMAGE := fabrictest/kafka:3.9.1-local

export TESTCONTAINERS_RYUK_DISABLED ?= true
export TESTCONTAINERS_HOST_OVERRIDE ?= 127.0.0.1

.PHONY: soak portal-screenshots run build test check test-deps check-scripts test-unit test-fuzz test-container test-witness kafka-image emulator-image cdc-images kdc-image docker bench vet

run:
	$(GO) run ./emulator/cmd/fabric-emulator serve --addr $(ADDR) --kafka $(KAFKA) --data-dir $(DATA_DIR)

build:
	$(GO) build -o bin/fabric-emulator ./emulator/cmd/fabric-emulator

test: test-deps vet check-scripts test-unit test-fuzz test-container test-witness

test-deps:
	bash scripts/install-test-deps.sh
	bash scripts/install-python-deps.sh
	bash scripts/install-java-clients.sh
	bash scripts/install-node-clients.sh

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# go vet, staticcheck and ruff, with and without the container tag.
vet:
	$(GO) vet ./...
	$(GO) vet -tags container ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tags container ./...
	.cache/venv/bin/ruff check python/

# The fast loop. go vet and staticcheck of the whole module, ruff on python/
# (the venv's ruff, else one installed once into .cache/ruff at the version
# python/requirements-test.txt pins), then go test, without -race, of every
# package holding a file changed since CHECK_BASE's merge base with HEAD
# (HEAD~ when that is HEAD itself), uncommitted and untracked files included;
# go.mod or go.sum changed: every package. The root ./emulator/ package's
# suite takes minutes: it is vetted here and tested by make test
# (CHECK_ROOT=1 tests it here too).
CHECK_BASE ?= $(shell git rev-parse -q --verify origin/main >/dev/null && echo origin/main || \
	(git rev-parse -q --verify main >/dev/null && echo main) || echo HEAD~)
CHECK_ROOT ?=

check:
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@ruff=.cache/venv/bin/ruff; \
	if [ ! -x $$ruff ]; then \
		ruff=.cache/ruff/bin/ruff; \
		if [ ! -x $$ruff ]; then \
			version=$$(sed -n 's/^ruff==//p' python/requirements-test.txt); \
			echo "installing ruff $$version into .cache/ruff"; \
			python3 -m venv .cache/ruff && .cache/ruff/bin/pip install -q "ruff==$$version"; \
		fi; \
	fi; \
	echo "$$ruff check python/"; $$ruff check python/
	@base=$$(git merge-base HEAD $(CHECK_BASE)); \
	[ "$$base" != "$$(git rev-parse HEAD)" ] || base=$$(git rev-parse HEAD~); \
	files=$$( { git diff --name-only $$base; git ls-files --others --exclude-standard; } | sort -u); \
	if echo "$$files" | grep -qx 'go\.mod\|go\.sum'; then \
		pkgs=$$($(GO) list -f '{{.Dir}}' ./... | sed "s|^$(CURDIR)|.|"); \
	else \
		pkgs=$$(for f in $$files; do \
			d=$$(dirname $$f); \
			while [ "$$d" != . ] && ! ls $$d/*.go >/dev/null 2>&1; do d=$$(dirname $$d); done; \
			[ "$$d" = . ] || echo ./$$d; \
		done | sort -u); \
	fi; \
	[ -n "$(CHECK_ROOT)" ] || pkgs=$$(echo "$$pkgs" | grep -vx '\./emulator'); \
	pkgs=$$(echo $$pkgs); \
	if [ -z "$$pkgs" ]; then echo "no Go package changed since $$base"; exit 0; fi; \
	echo "go test (changed since $$(git rev-parse --short $$base)): $$pkgs"; \
	$(GO) test -timeout 5m $$pkgs

# Every script on its "work to do" path (images rebuilt, a fresh venv), then
# on its "up to date" path, and shellcheck on all of them.
check-scripts: docker
	bash scripts/check-scripts.sh

# Tier 1: unit and in-process integration tests on the embedded broker (the
# portal's in headless chromium among them, emulator/internal/portal); then
# 2,000 Lakehouse destinations under a 4,096-descriptor limit, without -race
# (the race detector makes it take minutes; under -race it runs 200).
test-unit:
	$(GO) test -race -count=1 -timeout 20m ./...
	$(GO) test -count=1 -run '^TestManyDestinationsUnderFDLimit$$' -v ./emulator/

# Hostile input: each native fuzz target for FUZZ_TIME beyond its seed corpus
# (go test runs the seeds alone in tier 1). A finding leaves the input under
# the package's testdata/fuzz/ and fails the run (scripts/fuzz.sh).
FUZZ_TIME ?= 20s
FUZZ_TARGETS := \
	emulator/internal/gateway:FuzzReadRequest \
	emulator/internal/gateway:FuzzSession \
	emulator/internal/gateway:FuzzSniffConnection \
	emulator/internal/amqp:FuzzReadFrame \
	emulator/internal/amqp:FuzzDecodeValue \
	emulator/internal/amqp:FuzzDecodeMessage \
	emulator/internal/amqp/eventhubs:FuzzConnection \
	emulator/internal/amqp/eventhubs:FuzzParseSAS \
	emulator/internal/amqp/eventhubs:FuzzParseSelector \
	emulator/rows:FuzzCheckValue \
	emulator/rows:FuzzScanFlat \
	emulator/rows:FuzzIsObject \
	emulator/rows:FuzzDecodeCSV \
	emulator/rows:FuzzDecodeAvro \
	emulator/delta:FuzzRowToDelta \
	emulator/delta:FuzzFlatValuesMatchDecodedRows \
	emulator/pipeline:FuzzScalarFunctions \
	emulator/pipeline:FuzzOperators \
	emulator:FuzzDefinition \
	emulator/internal/definition:FuzzCompile \
	emulator:FuzzProduceBody \
	emulator:FuzzStoredEvent \
	emulator/internal/cdc:FuzzPGValue \
	emulator/internal/cdc:FuzzMyValue

test-fuzz:
	GO=$(GO) FUZZ_TIME=$(FUZZ_TIME) bash scripts/fuzz.sh $(FUZZ_TARGETS)

docker:
	bash scripts/ensure-docker.sh

kafka-image: docker
	bash scripts/build-kafka-image.sh

emulator-image: docker
	bash scripts/build-emulator-image.sh

cdc-images: docker
	bash scripts/build-cdc-images.sh

kdc-image: docker
	bash scripts/build-kdc-image.sh

# Tier 2: the harness, the witness specs and the examples against real
# Apache Kafka in a container (the local image with apache/kafka's contract);
# then the emulator on a secured Apache Kafka (SASL_SSL + SCRAM-SHA-512 and
# mutual TLS, about 1.5 min); then the CDC sources on PostgreSQL and
# MariaDB built from Debian's packages (make cdc-images). The Kerberos
# fixture (fixtures/kerberos) runs an MIT KDC (make kdc-image).
test-container: kafka-image emulator-image cdc-images kdc-image
	FABRICTEST_KAFKA_IMAGE=$${FABRICTEST_KAFKA_IMAGE:-$(LOCAL_KAFKA_IMAGE)} \
		$(GO) test -tags container -count=1 -timeout 20m ./fixtures/... ./fabrictest/... ./specs/... ./examples/...
	FABRICTEST_KAFKA_IMAGE=$${FABRICTEST_KAFKA_IMAGE:-$(LOCAL_KAFKA_IMAGE)} \
		$(GO) test -tags container -count=1 -timeout 10m -run '^TestSecuredKafka' ./emulator/
	$(GO) test -tags container -count=1 -timeout 10m ./emulator/internal/cdc/
	$(GO) test -tags container -count=1 -timeout 10m -run '^TestCDC' ./emulator/ ./emulator/cmd/fabric-emulator/

# Tier 3: the Fabric notebook snippet, unmodified, on JVM Spark and on Sail.
test-witness: kafka-image kdc-image
	bash scripts/install-spark-deps.sh
	.cache/venv/bin/python -m pytest python/tests -q

# Each benchmark does a second or more of work per run and runs BENCH_COUNT
# times; the output goes to BENCH_OUT, and the summary table at the end
# (internal/benchsummary) gives each figure's min, median and max over the
# runs beside its baseline and target, and names the machine's core count. A
# figure with fewer than 5 runs, or whose spread (max - min) exceeds 15% of
# its median, is not met (unstable). The drain runs in a process of its own
# each time: its peak RSS is the process's.
BENCH_COUNT ?= 5
BENCH_OUT   ?= $(CURDIR)/.cache/bench.txt
BENCH       = $(GO) test -run '^$$' -count $(BENCH_COUNT) -timeout 60m

bench: kafka-image
	mkdir -p $(dir $(BENCH_OUT)) && : > $(BENCH_OUT)
	$(BENCH) -bench 'Ratios' -benchtime 3s ./emulator/ | tee -a $(BENCH_OUT)
	$(BENCH) -bench 'Single' -benchtime 2s ./emulator/ | tee -a $(BENCH_OUT)
	$(BENCH) -bench 'IdleRSS|IdleEventstreams' -benchtime 1x ./emulator/ | tee -a $(BENCH_OUT)
	for i in $$(seq $(BENCH_COUNT)); do \
		$(GO) test -run '^$$' -count 1 -timeout 60m -bench DrainToDelta -benchtime 1x ./emulator/ | tee -a $(BENCH_OUT); \
	done
	$(BENCH) -bench 'AppendMillionRows|CheckpointedLog' -benchtime 1x ./emulator/delta/ | tee -a $(BENCH_OUT)
	$(BENCH) -bench 'Checkpoint(Write|Read)10k' -benchtime 1s ./emulator/delta/ | tee -a $(BENCH_OUT)
	$(BENCH) -bench GatewayRatio -benchtime 1s ./emulator/internal/gateway/ | tee -a $(BENCH_OUT)
	$(BENCH) -bench EventHubsRatio -benchtime 3s ./emulator/ | tee -a $(BENCH_OUT)
	$(BENCH) -bench '^Benchmark(Receive|SDKSendBatch1000)$$' -benchtime 2s ./emulator/internal/amqp/eventhubs/ | tee -a $(BENCH_OUT)
	$(BENCH) -bench PortalPages -benchtime 1x ./emulator/internal/portal/ | tee -a $(BENCH_OUT)
	FABRICTEST_KAFKA_IMAGE=$${FABRICTEST_KAFKA_IMAGE:-$(LOCAL_KAFKA_IMAGE)} \
		$(BENCH) -bench BenchmarkStart -benchtime 3x ./fabrictest/ | tee -a $(BENCH_OUT)
	$(GO) run ./internal/benchsummary $(BENCH_OUT)

# soak: the binary fed through its three doors while fault rules come and
# go and it is SIGKILLed and restarted, in front of Apache Kafka, for
# SOAK_DURATION; it reports acknowledged-lost, duplicates, and the last
# process's RSS and descriptors after warm-up and at the end. Not part of
# make test.
SOAK_DURATION ?= 10m
soak: kafka-image
	FABRICTEST_KAFKA_IMAGE=$${FABRICTEST_KAFKA_IMAGE:-$(LOCAL_KAFKA_IMAGE)} FABRICTEST_SOAK_DURATION=$(SOAK_DURATION) \
		$(GO) test -tags soak -count=1 -run '^TestSoak$$' -timeout 60m -v ./emulator/cmd/fabric-emulator/

# portal-screenshots regenerates the portal's pictures in docs/ from the
# browser tests (headless chromium; scripts/install-test-deps.sh installs it
# and vendors axe-core).
PORTAL_SHOTS = $(CURDIR)/.cache/portal-screenshots
portal-screenshots:
	bash scripts/install-test-deps.sh
	$(GO) test -count=1 -run 'TestPortalInChromium|TestWarningNodeInChromium|TestFailedNodeInChromium' ./emulator/internal/portal/
	cp $(PORTAL_SHOTS)/topology-canvas.png docs/portal-topology.png
	cp $(PORTAL_SHOTS)/table.png docs/portal-table.png
	cp $(PORTAL_SHOTS)/preview.png docs/portal-preview.png
	cp $(PORTAL_SHOTS)/explorer.png docs/portal-explorer.png
	cp $(PORTAL_SHOTS)/warning.png docs/portal-warning.png
	cp $(PORTAL_SHOTS)/failed.png docs/portal-failed.png
