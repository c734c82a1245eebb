package cel

import (
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// regexLib is Kubernetes' regex library: find and findAll, with RE2
// syntax as matches uses.
func regexLib() cel.EnvOption {
	l := &library{name: "regex", costs: map[string]overloadCost{
		"string_find_string":         productCost(stringFactor),
		"string_find_all_string":     productCost(stringFactor),
		"string_find_all_string_int": productCost(stringFactor),
	}}
	str, strs := cel.StringType, cel.ListType(cel.StringType)
	l.funcs = []cel.EnvOption{
		cel.Function("find", cel.MemberOverload("string_find_string", []*cel.Type{str, str}, str, cel.BinaryBinding(find))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string", []*cel.Type{str, str}, strs,
				cel.BinaryBinding(func(s, re ref.Val) ref.Val { return findAll(s, re, types.Int(-1)) })),
			cel.MemberOverload("string_find_all_string_int", []*cel.Type{str, str, cel.IntType}, strs,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return findAll(args[0], args[1], args[2]) }))),
	}
	return l.option()
}

func compileRegex(re ref.Val) (*regexp.Regexp, ref.Val) {
	pattern, ok := re.(types.String)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(re)
	}
	r, err := regexp.Compile(string(pattern))
	if err != nil {
		return nil, types.NewErr("%v", err)
	}
	return r, nil
}

func find(s, re ref.Val) ref.Val {
	str, ok := s.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	r, err := compileRegex(re)
	if err != nil {
		return err
	}
	return types.String(r.FindString(string(str)))
}

func findAll(s, re, limit ref.Val) ref.Val {
	str, ok := s.(types.String)
	n, ok2 := limit.(types.Int)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(s)
	}
	r, err := compileRegex(re)
	if err != nil {
		return err
	}
	found := r.FindAllString(string(str), int(n))
	if found == nil {
		found = []string{}
	}
	return types.NewStringList(types.DefaultTypeAdapter, found)
}
