package serve_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/serve"
)

// A page for a scenario, as an http.Handler; the page's own call runs the
// scenario with a --set override and streams the answer, the result first.
func ExampleNew() {
	sc, err := scenarios.Load("../scenarios/examples/seed-custom-pool.yaml", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := serve.New(sc, serve.Options{Command: []string{"poolsim", "run", "seed-custom-pool.yaml"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/api/run?" + url.Values{"set": {"pool.queue.capacity=40"}}.Encode())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	lines.Scan()
	var result struct {
		Type, Command string
		Figures       []struct{ Key, Raw string }
	}
	if err := json.Unmarshal(lines.Bytes(), &result); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(result.Type, "of", result.Command)
	for _, f := range result.Figures {
		if f.Key == "rejected" || f.Key == "threads_created" {
			fmt.Println(f.Key, f.Raw)
		}
	}
	// Output:
	// result of poolsim run seed-custom-pool.yaml --set pool.queue.capacity=40
	// rejected 40
	// threads_created 20
}
