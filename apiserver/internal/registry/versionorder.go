package registry

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Versions are ranked as kube-apiserver ranks them (discovery's order, a
// kind's preferred version, the version a deprecation warning names):
// kube-like versions (v2, v1beta1, v1alpha1) first, GA before beta before
// alpha, each by major then minor number, highest first; any other name
// (a custom resource's version may be any DNS-1035 label) after them, in
// alphabetical order.

// kubeVersion matches a kube-like version: v, major, then alpha or beta
// and minor.
var kubeVersion = regexp.MustCompile(`^v([0-9]+)(?:(alpha|beta)([0-9]+))?$`)

// versionName is what a version may be called: a DNS-1035 label.
var versionName = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// ValidVersion reports whether v may name a version.
func ValidVersion(v string) bool { return len(v) <= 63 && versionName.MatchString(v) }

// versionRank is a kube-like version's level (2 GA, 1 beta, 0 alpha),
// major and minor; ok is false for other names.
func versionRank(v string) (level, major, minor int, ok bool) {
	m := kubeVersion.FindStringSubmatch(v)
	if m == nil {
		return 0, 0, 0, false
	}
	var err error
	if major, err = strconv.Atoi(m[1]); err != nil {
		return 0, 0, 0, false
	}
	switch m[2] {
	case "":
		return 2, major, 0, true
	case "beta":
		level = 1
	}
	if minor, err = strconv.Atoi(m[3]); err != nil {
		return 0, 0, 0, false
	}
	return level, major, minor, true
}

// compareVersions is > 0 when a ranks above b, < 0 when below, 0 when
// they are the same.
func compareVersions(a, b string) int {
	if a == b {
		return 0
	}
	al, amaj, amin, aok := versionRank(a)
	bl, bmaj, bmin, bok := versionRank(b)
	switch {
	case !aok && !bok:
		return strings.Compare(b, a) // alphabetical: the first ranks highest
	case !aok:
		return -1
	case !bok:
		return 1
	case al != bl:
		return al - bl
	case amaj != bmaj:
		return amaj - bmaj
	}
	return amin - bmin
}

// SortVersions returns versions highest ranked first.
func SortVersions(vs []string) []string {
	out := slices.Clone(vs)
	slices.SortStableFunc(out, func(a, b string) int { return compareVersions(b, a) })
	return out
}
