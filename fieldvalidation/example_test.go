package fieldvalidation_test

import (
	"fmt"

	"github.com/kapi-dev/kapi/fieldvalidation"
)

type widget struct {
	Spec struct {
		Color string `json:"color"`
	} `json:"spec"`
}

// Decode a body with an unknown and a duplicate field and judge it as the
// fieldValidation query parameter asks.
func Example() {
	body := []byte(`{"spec":{"colour":"red","color":"blue","color":"green"}}`)
	var w widget
	problems, err := fieldvalidation.DecodeJSON(body, &w)
	if err != nil {
		panic(err)
	}
	fmt.Println("decoded color:", w.Spec.Color)
	for _, query := range []string{"Ignore", "", "Strict", "Loose"} {
		d, errs := fieldvalidation.Parse(query)
		if errs != nil {
			fmt.Printf("%q: %v\n", query, errs)
			continue
		}
		warnings, err := d.Check(problems)
		fmt.Printf("%q: %s warnings %q, error %v\n", query, d, warnings, err)
	}
	// Output:
	// decoded color: green
	// "Ignore": Ignore warnings [], error <nil>
	// "": Warn warnings ["unknown field \"spec.colour\"" "duplicate field \"spec.color\""], error <nil>
	// "Strict": Strict warnings [], error strict decoding error: unknown field "spec.colour", duplicate field "spec.color"
	// "Loose": fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"
}
