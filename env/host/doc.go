// Package host serves environments that live in another process: a host
// that oracle starts and speaks to in JSON Lines, the environment protocol
// of docs/environment-protocol.md. An Environment implements
// env.Environment over its hosts, so every rollout still goes through
// runner.Run: oracle validates the inputs, counts the calls, scores the
// checks, diffs the states the host returns and writes every artifact,
// and a foreign environment's artifacts are the bytes one of Go would make.
//
// Two hosts ship with oracle, embedded in the binary and written once into
// the user's cache (or a temporary folder): the Node host (node/host.mjs),
// which loads a module in the original runner's contract (createState,
// bindTools, verifiers) through tsx for TypeScript and supplies
// @burn0/silo where the project has none, and runs agent modules
// (ModuleAgent); and the Python host (python/host.py), standard library
// only, which loads a module written against its oracle_env. Load picks
// the host by the manifest's entrypoint.
//
// The contract's promises hold for a host's tools: an output reaches the
// agent as JSON; a failed call leaves the world as before it (the hosts
// replay the calls that succeeded on a copy of the initial state); a call
// still running when its rollout's budget ends is given up, its host killed
// and the world rebuilt in a fresh one from the calls before; a host that
// exits, prints garbage or answers beyond the limits of internal/safeio
// ends the rollout as an error naming what happened, with the end of its
// stderr, and the next rollout gets a fresh host.
//
// How many hosts: a world takes a place in a host with room; once worlds
// have had to share a full host for a while (growAfter of them), another
// host starts in the background, up to Config.Hosts (one per CPU). On this
// project's 2-core machine two jobs of CRM-sized rollouts ran within noise
// of each other through one host with two worlds and through two hosts
// (BenchmarkJobs), while every host's start costs Node's and tsx's start
// (a few hundred milliseconds of CPU): so a short check pays for one host
// and a long one gets a host per job.
package host
