# Glimpse: `make run` starts the app with demo data; `make test` runs every test.
SHELL := /bin/bash
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GO_LDFLAGS := -X main.version=$(VERSION)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1
export PERCY_POSTINSTALL_BROWSER := false
# Builds leave the checkout's path out of what they compile, so the build cache's entries for this
# module are the same in every clone: a fresh clone (CI's) reuses what another clone already compiled
# (race, fuzzing, vet and staticcheck builds) instead of compiling every package of ours again.
export GOFLAGS := -trimpath $(GOFLAGS)

.PHONY: run test testdb checks-run alloc-test go-test-run e2e-run fuzz-short-run build lint bench e2e soak fmt generate deps renderer go-test renderer-test load load-run lighthouse lighthouse-run size fuzz fuzz-short faults fault-load fault-db fault-instances seed-scale scale-bench

## run: build everything and start Glimpse with the embedded database and the demo subscriber
run: build
	GLIMPSE_DEMO=1 GLIMPSE_DEV_MAILBOX=1 GLIMPSE_ENVIRONMENT=development ./bin/glimpse serve

## test: every test: lint, Go (race, real embedded database), renderer unit tests, end to end in Chromium.
## After one build, three independent lines run side by side, each printed whole when it ends: the Go tests, the
## e2e suite (mostly waiting on a browser), and short fuzzing → renderer tests → lint (fuzzing, one worker,
## first: what ends the run should be work that uses both cores once the other lines are done).
test: build testdb
	@$(MAKE) --no-print-directory -j3 --output-sync=target go-test-run e2e-run checks-run

# -j1: one after another, whatever jobs the line's parent may run.
checks-run:
	@$(MAKE) --no-print-directory -j1 fuzz-short-run alloc-test renderer-test lint

# alloc-test: the tests that count allocations, without the race detector (whose sync.Pool drops
# pooled objects at random, so counts vary; they skip themselves under it).
alloc-test:
	go test -count=1 -run '^TestNoAllocations' ./engine/metrics/

## build: the renderer, then the binary at bin/glimpse with the renderer embedded
build: renderer
	go build -trimpath -ldflags "$(GO_LDFLAGS)" -o bin/glimpse .

# node_modules is refreshed whenever package-lock.json changes.
node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: node_modules/.package-lock.json
	go mod download

renderer: deps
	npm run build

## lint: gofmt, go vet, staticcheck, ESLint and the TypeScript compiler
lint: deps
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	go vet $$(go list ./... | grep -v /node_modules/)
	go run $(STATICCHECK) $$(go list ./... | grep -v /node_modules/)
	npm run lint

## go-test: the Go tests with the race detector. Each test binary's MongoDB-compatible test server runs as
## bin/glimpse-testdb in a process of its own: FerretDB, not instrumented, and not in the shipped binary
## (engine/store/storetest; a plain `go test` builds it itself)
go-test: build testdb
	@$(MAKE) --no-print-directory go-test-run

## testdb: bin/glimpse-testdb, the tests' FerretDB server (engine/store/storetest/cmd/testdb), without -race
testdb:
	go build -o bin/glimpse-testdb ./engine/store/storetest/cmd/testdb

# The slowest packages are named first: go test starts packages in the order given, two at a time, and
# the line ends with its last package, so a long one started last would end it alone on one core.
SLOW_GO_TESTS := ./engine/server ./engine/billing ./engine/instagram/export ./engine/app
# The race detector watches our code, the standard library and every dependency but two kinds that only
# compute on memory of their own: argon2id (and its blake2b), whose 19 MiB passes the detector made ten
# times slower (half of engine/server's CPU went to it), and SQLite transpiled from C (modernc.org), which
# a test opens in-process to index and explain, its pointer arithmetic otherwise checked on every access.
UNWATCHED := -gcflags='golang.org/x/crypto/argon2=-race=false' -gcflags='golang.org/x/crypto/blake2b=-race=false' \
	-gcflags='modernc.org/...=-race=false -d=checkptr=0'
go-test-run:
	GLIMPSE_TEST_DB_SERVER=$(CURDIR)/bin/glimpse-testdb go test -race $(UNWATCHED) -count=1 $$(go list $(SLOW_GO_TESTS) ./... | grep -v /node_modules/)

# fuzz-short: every fuzz target briefly (25 targets × 1s plus one fuzzing build per package), so a
# decoder that crashes on its seeds or on inputs near them fails `make test` (the seeds alone run in
# go-test too); `make fuzz` searches for real. The renderer is built first: the server's targets embed it.
fuzz-short: renderer
	@$(MAKE) --no-print-directory fuzz-short-run

# One fuzzing worker each: the short run shares the machine with the e2e suite.
fuzz-short-run:
	FUZZTIME=$(or $(FUZZTIME_SHORT),1s) FUZZ_PARALLEL=1 scripts/fuzz

## fuzz: every fuzz target for FUZZTIME each (default 60s); crashers land in testdata/fuzz/
fuzz: renderer
	FUZZTIME=$(or $(FUZZTIME),60s) scripts/fuzz

renderer-test: deps
	npm test

## e2e: Playwright in Debian's Chromium against the real binary (Percy snapshots when PERCY_TOKEN is set)
e2e: build
	@$(MAKE) --no-print-directory e2e-run

e2e-run:
	npx percy exec -- npx playwright test --config e2e/playwright.config.ts

## soak: the e2e suite three times in a row, each on a fresh database; run it before a stop: a test that
## fails one time in three is a defect
soak: build
	for run in 1 2 3; do echo "soak: run $$run of 3"; E2E_TYPING_RUNS=20 npx playwright test --config e2e/playwright.config.ts || exit 1; done

## bench: Go benchmarks, the HTTP load comparison against the real binary (make load), the renderer's bundle size
## and Lighthouse's first-screen figures (make lighthouse)
bench: build
	go test -run '^$$' -bench . -benchmem ./screens/ ./engine/...
	$(MAKE) --no-print-directory load-run
	npm run size
	$(MAKE) --no-print-directory lighthouse-run

## lighthouse: the real bin/glimpse (GLIMPSE_DEMO=1) in Debian's Chromium, Lighthouse mobile with simulated throttling:
## LCP, TBT, FCP, CLS, performance and accessibility on sign-in, the dashboard and Analytics (LIGHTHOUSE_RUNS, default 1)
lighthouse: build lighthouse-run

lighthouse-run:
	node scripts/lighthouse.mjs

## load: the real bin/glimpse (GLIMPSE_DEMO=1, info logging) serving the signed-in dashboard to a browser's
## Accept-Encoding against a bare Fiber JSON endpoint, same load generator, interleaved rounds: req/s, p50,
## p99 and the ratios (docs/benchmarks.md §3; LOAD_FLAGS e.g. "-rounds 5 -round 6s -cpuprofile cpu.prof")
load: build load-run

load-run:
	go build -o bin/barejson ./scripts/barejson
	go run ./scripts/bench -bin bin/glimpse -bare bin/barejson $(LOAD_FLAGS)

size: renderer
	npm run size

## seed-scale: fill SCALE_DATA (default data-scale/) with SCALE_N subscribers (default 1,000,000) and SCALE_N/10
## connected profiles for make scale-bench; Ctrl-C stops it with what it wrote so far usable (docs/benchmarks.md §7)
seed-scale: build
	GLIMPSE_ENVIRONMENT=development GLIMPSE_DATA_DIR=$(or $(SCALE_DATA),data-scale) GLIMPSE_LOG_LEVEL=warn ./bin/glimpse seed-scale -n $(or $(SCALE_N),1000000)

## scale-bench: the real bin/glimpse on the seed-scale database and on a small one, same journeys (sign-in, dashboard,
## My Plan, Analytics, a cancel attempt, the data export, deleting the account, checkout) in interleaved rounds:
## p50/p99 per journey and the ratio big/small
## (docs/benchmarks.md §7; SCALE_FLAGS e.g. "-rounds 5 -per 40")
scale-bench: build
	go run ./scripts/scalebench -bin bin/glimpse -big $(or $(SCALE_DATA),data-scale) $(SCALE_FLAGS)

## faults: the real binary under faults (issue #8): load with a sign-in flood (FAULT_SECONDS, default 60),
## the app on the embedded store killed under load and restarted on its data (and, with GLIMPSE_TEST_MONGODB_URI
## and FAULT_MONGODB_STOP/START, MongoDB killed and brought back), two instances on one MongoDB (skipped
## without GLIMPSE_TEST_MONGODB_URI: the embedded store's lock admits one process); figures with -v
faults: build
	go test -tags faults -count=1 -v -timeout 20m ./e2e/faults/

fault-load: build
	go test -tags faults -count=1 -v -timeout 20m -run TestLoadWithSignInFlood ./e2e/faults/

fault-db: build
	go test -tags faults -count=1 -v -timeout 10m -run TestDatabaseOutage ./e2e/faults/

fault-instances: build
	go test -tags faults -count=1 -v -timeout 10m -run TestTwoInstances ./e2e/faults/

## fmt: format the Go sources (gofmt); TypeScript has no formatter configured, only ESLint (make lint)
fmt:
	gofmt -w $$(git ls-files '*.go')

## generate: write the files generated from engine/ui/schema.json (renderer/src/schema/contract.gen.ts,
## engine/ui/contract_gen.go), then rewrite the golden screens in fixtures/screens and the server-drawn goldens in
## fixtures/prerender after an intended change
generate:
	go run ./engine/ui/schemagen/cmd/schemagen
	go test ./screens/ -run TestGoldenScreens -update
	go test ./engine/ui/prerender/ -update
