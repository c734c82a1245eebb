package audit

import (
	"encoding/json"

	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
)

// Level is how much of a request an event records.
type Level string

// The levels, least to most.
const (
	// LevelNone records nothing.
	LevelNone Level = "None"
	// LevelMetadata records who, what, when and the response code.
	LevelMetadata Level = "Metadata"
	// LevelRequest adds the request body.
	LevelRequest Level = "Request"
	// LevelRequestResponse adds the response body.
	LevelRequestResponse Level = "RequestResponse"
)

func (l Level) rank() int {
	switch l {
	case LevelMetadata:
		return 1
	case LevelRequest:
		return 2
	case LevelRequestResponse:
		return 3
	}
	return 0
}

// AtLeast reports whether l records at least as much as o.
func (l Level) AtLeast(o Level) bool { return l.rank() >= o.rank() }

// Stage is the point of a request's life an event is written at.
type Stage string

// The stages kapi writes: ResponseStarted for long-running requests
// (watches) when their response headers are sent, ResponseComplete for
// every request when it ends, Panic when serving it panicked.
const (
	StageRequestReceived  Stage = "RequestReceived"
	StageResponseStarted  Stage = "ResponseStarted"
	StageResponseComplete Stage = "ResponseComplete"
	StagePanic            Stage = "Panic"
)

// Event is one audit.k8s.io/v1 Event.
type Event struct {
	meta.TypeMeta `json:",inline"`
	Level         Level    `json:"level"`
	AuditID       string   `json:"auditID"`
	Stage         Stage    `json:"stage"`
	RequestURI    string   `json:"requestURI"`
	Verb          string   `json:"verb"`
	User          UserInfo `json:"user"`
	// ImpersonatedUser is the user the request acted as, when it
	// impersonated one; User is then who sent it.
	ImpersonatedUser *UserInfo       `json:"impersonatedUser,omitempty"`
	SourceIPs        []string        `json:"sourceIPs,omitempty"`
	UserAgent        string          `json:"userAgent,omitempty"`
	ObjectRef        *ObjectRef      `json:"objectRef,omitempty"`
	ResponseStatus   *meta.Status    `json:"responseStatus,omitempty"`
	RequestObject    json.RawMessage `json:"requestObject,omitempty"`
	ResponseObject   json.RawMessage `json:"responseObject,omitempty"`

	RequestReceivedTimestamp meta.MicroTime    `json:"requestReceivedTimestamp"`
	StageTimestamp           meta.MicroTime    `json:"stageTimestamp"`
	Annotations              map[string]string `json:"annotations,omitempty"`
}

// UserInfo is a user as an event records it.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// UserInfoOf converts a user; nil is the empty UserInfo.
func UserInfoOf(u *auth.User) UserInfo {
	if u == nil {
		return UserInfo{}
	}
	return UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}

// ObjectRef names the object of a resource request.
type ObjectRef struct {
	Resource        string `json:"resource,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Subresource     string `json:"subresource,omitempty"`
}
