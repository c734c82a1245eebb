package cel

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// semverType is the type of semver(...) values.
var semverType = cel.ObjectType("kubernetes.Semver")

// version is a semantic version (semver.org 2.0.0).
type version struct {
	major, minor, patch uint64
	pre                 []string
}

// parseSemver parses a version; normalize accepts a leading v, missing
// minor and patch numbers and leading zeros, as Kubernetes' library does.
func parseSemver(s string, normalize bool) (version, error) {
	var v version
	if normalize {
		s = strings.TrimPrefix(s, "v")
	}
	core, _, _ := strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if normalize {
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	if len(parts) != 3 {
		return v, fmt.Errorf("No Major.Minor.Patch elements found")
	}
	nums := make([]uint64, 3)
	for i, p := range parts {
		if normalize && len(p) > 1 {
			p = strings.TrimLeft(p, "0")
			if p == "" {
				p = "0"
			}
		}
		if p == "" || (len(p) > 1 && p[0] == '0') {
			return v, fmt.Errorf("invalid number %q", p)
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return v, fmt.Errorf("invalid number %q", p)
		}
		nums[i] = n
	}
	v.major, v.minor, v.patch = nums[0], nums[1], nums[2]
	if hasPre {
		for _, id := range strings.Split(pre, ".") {
			if id == "" || strings.Trim(id, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-") != "" {
				return v, fmt.Errorf("invalid prerelease %q", pre)
			}
			v.pre = append(v.pre, id)
		}
	}
	return v, nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareVersions orders versions as semver.org says: numbers, then a
// release above its prereleases, then prerelease identifiers in turn.
func compareVersions(a, b version) int {
	for _, c := range []int{cmpUint(a.major, b.major), cmpUint(a.minor, b.minor), cmpUint(a.patch, b.patch)} {
		if c != 0 {
			return c
		}
	}
	switch {
	case len(a.pre) == 0 && len(b.pre) == 0:
		return 0
	case len(a.pre) == 0:
		return 1
	case len(b.pre) == 0:
		return -1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		x, y := a.pre[i], b.pre[i]
		xn, xerr := strconv.ParseUint(x, 10, 64)
		yn, yerr := strconv.ParseUint(y, 10, 64)
		var c int
		switch {
		case xerr == nil && yerr == nil:
			c = cmpUint(xn, yn)
		case xerr == nil:
			c = -1
		case yerr == nil:
			c = 1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmpUint(uint64(len(a.pre)), uint64(len(b.pre)))
}

func semverVal(v version) ref.Val {
	return opaque[version]{t: semverType, v: v, equal: func(a, b version) bool { return compareVersions(a, b) == 0 }}
}

// semverLib is Kubernetes' semver library: semver and isSemver (with an
// optional normalize flag), major, minor, patch, compareTo,
// isGreaterThan and isLessThan.
func semverLib() cel.EnvOption {
	l := &library{name: "semver", costs: map[string]overloadCost{
		"string_to_semver": scanCost(stringFactor), "string_bool_to_semver": scanCost(stringFactor),
		"is_semver_string": scanCost(stringFactor), "is_semver_string_bool": scanCost(stringFactor),
	}}
	str, b := cel.StringType, cel.BoolType
	parse := func(args ...ref.Val) (version, ref.Val) {
		s, ok := args[0].(types.String)
		if !ok {
			return version{}, types.MaybeNoSuchOverloadErr(args[0])
		}
		norm := false
		if len(args) > 1 {
			n, ok := args[1].(types.Bool)
			if !ok {
				return version{}, types.MaybeNoSuchOverloadErr(args[1])
			}
			norm = bool(n)
		}
		v, err := parseSemver(string(s), norm)
		if err != nil {
			return v, types.NewErr("string_to_semver overload failed: %v", err)
		}
		return v, nil
	}
	toSemver := func(args ...ref.Val) ref.Val {
		v, err := parse(args...)
		if err != nil {
			return err
		}
		return semverVal(v)
	}
	isSemver := func(args ...ref.Val) ref.Val {
		_, err := parse(args...)
		return types.Bool(err == nil)
	}
	num := func(name string, get func(version) uint64) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("semver_"+name, []*cel.Type{semverType}, cel.IntType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				sv, err := unwrap[version](v)
				if err != nil {
					return err
				}
				return types.Int(get(sv))
			})))
	}
	cmp := func(name string, result func(int) ref.Val, out *cel.Type) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("semver_"+name, []*cel.Type{semverType, semverType}, out,
			cel.BinaryBinding(func(a, bv ref.Val) ref.Val {
				x, err := unwrap[version](a)
				if err != nil {
					return err
				}
				y, err := unwrap[version](bv)
				if err != nil {
					return err
				}
				return result(compareVersions(x, y))
			})))
	}
	l.funcs = []cel.EnvOption{
		cel.Function("semver",
			cel.Overload("string_to_semver", []*cel.Type{str}, semverType, cel.FunctionBinding(toSemver)),
			cel.Overload("string_bool_to_semver", []*cel.Type{str, b}, semverType, cel.FunctionBinding(toSemver))),
		cel.Function("isSemver",
			cel.Overload("is_semver_string", []*cel.Type{str}, b, cel.FunctionBinding(isSemver)),
			cel.Overload("is_semver_string_bool", []*cel.Type{str, b}, b, cel.FunctionBinding(isSemver))),
		num("major", func(v version) uint64 { return v.major }),
		num("minor", func(v version) uint64 { return v.minor }),
		num("patch", func(v version) uint64 { return v.patch }),
		cmp("isGreaterThan", func(c int) ref.Val { return types.Bool(c > 0) }, b),
		cmp("isLessThan", func(c int) ref.Val { return types.Bool(c < 0) }, b),
		cmp("compareTo", func(c int) ref.Val { return types.Int(c) }, cel.IntType),
	}
	return l.option()
}
