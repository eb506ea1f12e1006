module github.com/99designs/keyring

go 1.19

require (
	github.com/99designs/go-keychain v0.0.0-20191008050251-8e49817e8af4
	github.com/danieljoos/wincred v1.1.2
	github.com/dvsekhvalnov/jose2go v1.5.0
	github.com/godbus/dbus v0.0.0-20190726142602-4481cbc300e2
	github.com/gsterjov/go-libsecret v0.0.0-20161001094733-a6f4afe4910c
	github.com/mtibben/percent v0.2.1
	github.com/stretchr/testify v1.7.0
	golang.org/x/sys v0.3.0
	golang.org/x/term v0.3.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/stretchr/objx v0.3.0 // indirect
	gopkg.in/yaml.v3 v3.0.0-20210107192922-496545a6307b // indirect
)
