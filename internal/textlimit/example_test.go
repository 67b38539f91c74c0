package textlimit_test

import (
	"fmt"
	"strings"

	"github.com/poolsim/poolsim/internal/textlimit"
)

// ReadAll refuses input longer than its limit as soon as it has read one
// byte too many, rather than reading /dev/zero until memory runs out.
func ExampleReadAll() {
	_, err := textlimit.ReadAll(strings.NewReader("0123456789"), 4)
	fmt.Println(err)
	b, err := textlimit.ReadAll(strings.NewReader("0123"), 4)
	fmt.Println(string(b), err)
	// Output:
	// textlimit: input too large
	// 0123 <nil>
}
