package mutate

import (
	"context"
	"fmt"
)

// typescriptMutator is the mutator of TypeScript and JavaScript files.
func typescriptMutator() (func(context.Context, []byte) ([]edit, error), error) {
	return nil, fmt.Errorf("no_typescript: mutants of TypeScript environments are not made yet")
}
