module github.com/kapi-dev/kapi/examples

go 1.26

require github.com/kapi-dev/kapi v0.0.0

replace github.com/kapi-dev/kapi => ../
