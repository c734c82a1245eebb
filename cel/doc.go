// Package cel evaluates the x-kubernetes-validations rules of kapi schemas
// with the CEL implementation Kubernetes uses (github.com/google/cel-go),
// with the semantics kube-apiserver gives CustomResourceDefinitions.
//
// It is its own Go module so that servers without rules do not carry
// cel-go. An [Engine] implements schema.RuleEngine; give it to the server
// (apiserver.Options.RuleEngine) and every kind whose schema carries
// rules has them compiled at registration and evaluated on every write.
//
// # Semantics
//
// A rule sees the value of its schema node as self: objects with
// properties as CEL objects whose fields are the properties (names that
// are CEL keywords or hold '-', '.', '/' or "__" are escaped as
// kube-apiserver escapes them: __dash__, __dot__, ...), objects with
// additionalProperties as maps, arrays as lists (list-type set and map
// compare without regard to order), strings of format byte, duration,
// date and date-time as bytes, durations and timestamps. At the root of
// a kind (and of an embedded resource) self also has apiVersion, kind and
// metadata.name and metadata.generateName. Rules on a node are evaluated
// only where the value is present and not null.
//
// A rule that names oldSelf is a transition rule: it runs on updates only,
// where the old value correlates with the new one: the same property of
// an object (atomic and granular alike), the same key of a map, and the
// first item with the same keys of a list-type map (every key set to a
// scalar in both; new items have no old one). Items of other lists (sets
// and atomic lists) do not correlate, and a transition rule below one is
// refused at registration. With optionalOldSelf the
// rule also runs on creates and on uncorrelated values, oldSelf being an
// optional value.
//
// Ratcheting: when an update leaves a value as it was, the errors of its
// rules (other than transition rules) are returned as warnings instead,
// so that objects stored before a rule tightened can still be updated.
//
// # Libraries
//
// Beside the standard definitions, rules may use the extension libraries
// CRD authors use: strings (ext.Strings v2), sets, lists (ext.Lists v3,
// and Kubernetes' isSorted, sum, min, max, indexOf, lastIndexOf),
// two-variable comprehensions, optional values, regular expressions
// (find, findAll), URLs (url, isURL and their accessors), IP addresses
// and CIDRs (ip, cidr, isIP, isCIDR and their accessors), named formats
// (format.named, format.dns1123Label, ... and validate) and semantic
// versions (semver, isSemver, major, minor, patch, compareTo,
// isGreaterThan, isLessThan).
//
// # Cost
//
// At compile time each rule's cost is estimated from the schema's maxItems,
// maxProperties and maxLength (or, where they are missing, from the
// largest request) times the number of times the rule may run, and rules
// over kube-apiserver's per-expression limit are refused with its
// message. At run time each evaluation is limited to a per-call cost and
// all of a request's rules share one budget; the context's deadline
// interrupts evaluation.
package cel
