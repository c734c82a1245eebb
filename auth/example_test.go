package auth_test

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/auth"
)

func ExampleUserFrom() {
	ctx := auth.WithUser(context.Background(), &auth.User{
		Name: "alice", Groups: []string{"dev", "system:authenticated"},
	})
	u, ok := auth.UserFrom(ctx)
	fmt.Println(ok, u.Name, u.InGroup("dev"), u.InGroup("system:masters"))
	_, ok = auth.UserFrom(context.Background())
	fmt.Println(ok)
	// Output:
	// true alice true false
	// false
}
