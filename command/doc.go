// Package command is oracle's command tree. It is importable so that teams
// build their own binary with their own environments in one call:
//
//	func main() { os.Exit(command.Main(os.Args, myenvs.All)) }
//
// Commands print results on stdout and progress and errors on stderr. Exit
// codes follow diff(1): 0 when all is well (a task passed, every baseline
// unchanged), 1 when behaviour differs (a task did not pass, a baseline
// changed), 2 for trouble (bad arguments, unreadable files, internal errors).
package command
