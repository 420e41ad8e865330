package golden_test

import (
	"context"
	"fmt"

	"github.com/aem-dev/aem/input/golden"
)

func ExampleParseMapping() {
	m, err := golden.ParseMapping("gold_args=expected_arguments, turn=role")
	fmt.Println(m, err)
	_, err = golden.ParseMapping("gold_arguments=expected_arguments")
	fmt.Println(err != nil)
	// Output:
	// gold_args=expected_arguments,turn=role <nil>
	// true
}

func ExampleOpen() {
	ctx := context.Background()
	r, err := golden.Open(ctx, "testdata/dialogs.jsonl", golden.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	for d, err := range r.All(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, t := range d.Turns {
			fmt.Printf("%s turn %d %s gold=%v predict=%v\n", d.ID, t.TurnNo, t.Role, t.HasGold, t.HasPredict)
		}
	}
	// Output:
	// a turn 1 Agent gold=true predict=true
	// b turn 1 User gold=true predict=false
	// b turn 2 Tool gold=true predict=true
	// 17 turn 1 Agent gold=false predict=true
}
