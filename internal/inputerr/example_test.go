package inputerr_test

import (
	"errors"
	"fmt"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// Every bad input prints in one style: where, which key, what is wrong and
// what is allowed; Is tells input errors (exit 2) from the rest, through
// any wrapping.
func Example() {
	err := inputerr.New("s.yaml", 3, 9, "pool.core", "must be >= 0, got -1", "an integer >= 0")
	fmt.Println(err)
	fmt.Println(inputerr.Is(fmt.Errorf("loading: %w", err)), inputerr.Is(errors.New("disk full")))
	fmt.Println(inputerr.Suggest("cores", []string{"core", "max", "keepAlive"}))
	// Output:
	// s.yaml:3:9: pool.core: must be >= 0, got -1 (an integer >= 0)
	// true false
	// core
}
