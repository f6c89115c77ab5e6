// Package baseline is the store of frozen artifacts on disk.
//
// A case is (environment, agent, task). Its baseline is one file for each
// artifact of Files, .silo/baselines/<env>/<agent>/<TASK>.result.json,
// <TASK>.state-diff.json and <TASK>.calls.json (an environment may freeze
// fewer), holding the artifacts' exact bytes with no metadata,
// so pull-request diffs stay readable and merges rarely conflict.
//
// Writes are atomic (a temporary file in the same folder, fsync, rename,
// fsync of the folder): an interrupted write leaves each file either old or
// new, never torn. Lock serialises writers of one store.
package baseline
