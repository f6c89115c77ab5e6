// Package command is oracle's command tree. It is importable so that teams
// build their own binary with their own environments in one call:
//
//	func main() { os.Exit(command.Main(os.Args, myenvs.All)) }
//
// Commands print results on stdout and progress and errors on stderr. Exit
// codes follow diff(1): 0 when all is well (a task passed, every baseline
// unchanged), 1 when behaviour differs (a task did not pass, a baseline
// changed), 2 for trouble (bad arguments, unreadable files, internal errors).
//
// # Flags
//
// Each verb has one options struct (checkOptions, recordOptions, …) that
// embeds flags, and one run method. Its constructor (checkCommand, …) makes
// the struct and binds each flag to the field it fills, and nowhere else
// is a flag read: run and the helpers it calls read fields, never a flag by
// name, so a flag renamed or dropped from the struct fails to compile.
// Flags several verbs share are a group with its own struct and add method
// (caseOptions for record and check, agentOptions for the agent flags,
// gateOptions for distribution cases), held by the verbs' structs. What
// every command shares (the command line, the project folder, the --env
// patterns) is the session, a typed value in the commands' context.
//
// To add a flag to a verb: add a field to its options struct and one line
// to its constructor, in the order --help lists the flags,
//
//	o.Bool(&o.AllowRegressions, &cli.BoolFlag{Name: "allow-regressions", Usage: "…"})
//
// (String, Bool, Int, Int64, Float64, Duration and Strings bind a field of
// that type), then read o.AllowRegressions in run. Whether the command line
// gave it, rather than its default, is o.isSet(c, &o.AllowRegressions);
// o.given(c, &o.A, &o.B) names the first of several that was given, for
// "--a goes with --b" errors; o.required(path, &o.Env) refuses an empty
// required text flag; positive(&o.flags, &o.Jobs) refuses a number or
// duration below 1. A mistyped flag name gets the nearest known one
// ("did you mean --json?", flagUsageError), for every verb alike.
package command
