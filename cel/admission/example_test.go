package admission_test

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/apiserver/admission/match"
	celadmission "github.com/kapi-dev/kapi/cel/admission"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/status"
)

// The compiler checks an admission configuration's expressions as
// kube-apiserver does when the configuration is written, and evaluates
// a webhook's matchConditions.
func ExampleCompiler() {
	c, err := celadmission.NewCompiler()
	if err != nil {
		panic(err)
	}
	bad := c.CheckExpression(arv1.Expression{Path: status.NewPath("spec", "validations").Index(0).Child("expression"),
		Kind: arv1.ValidationExpression, Expression: "object.spec.replicas +"})
	fmt.Println(bad != nil)

	conds, err := c.WebhookConditions().CompileConditions([]arv1.MatchCondition{{Name: "creates", Expression: "request.operation == 'CREATE'"}})
	if err != nil {
		panic(err)
	}
	matched, failed, err := conds.Match(context.Background(), &match.ConditionInput{Request: map[string]any{"operation": "UPDATE"}})
	fmt.Println(matched, failed, err)
	// Output:
	// true
	// false creates <nil>
}
