# syntax=docker/dockerfile:1
# Multi-stage build: compile a static binary, then run it as a non-root user
# on a minimal base. Build: docker build -t ttt-bot .

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Dependencies first, so they stay cached while the code changes.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/bot ./cmd/bot

# distroless/static: CA certificates and tzdata, no shell, no package
# manager; the :nonroot tag runs as uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/bot /usr/local/bin/bot
USER nonroot:nonroot
WORKDIR /home/nonroot
# /healthz, /readyz and /metrics on every interface of the container: only
# its own network reaches them unless the port is published. Outside a
# container, .env.example binds loopback instead.
ENV OPS_ADDR=:9090
ENTRYPOINT ["/usr/local/bin/bot"]
CMD ["serve"]
