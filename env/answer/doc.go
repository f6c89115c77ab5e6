// Package answer reads free-text answers for verifiers: the numbers an answer
// states (NumbersIn, StatesNumber), the people and things it names or must not
// name (Names, DoesNotName, or Fold a text once to match many names against
// it), and whether it hedges between alternatives (Hedges).
//
// An agent's final output is prose, and every verifier that grades it must
// read it the same way: "$507,500.00" states 507500 whatever the environment,
// "Kim, Dana" names Dana Kim, "either X or Y" is not an answer. Keeping that
// reading in one package means a fix to it reaches every environment at once,
// and a verifier's checks differ only in what they expect, never in how they
// parse. The helpers are pure functions of their arguments: no state, no
// locale, ASCII digits only. They read a text as a terminal shows it: ANSI
// escape sequences (colours, cursor movement, window titles; ECMA-48 control
// sequences and strings in their 7-bit and 8-bit forms) are not part of it.
package answer
