//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package command

import "errors"

// cbreak is not known here: review reads a line for each answer.
func cbreak(int) (func(), error) { return nil, errors.New("no cbreak mode on this system") }
