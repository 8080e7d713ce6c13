# syntax=docker/dockerfile:1
#
# Glimpse: the React renderer is built first, embedded into the Go binary,
# and the binary runs alone on a small Alpine image (busybox wget serves the
# healthcheck) as a non-root user.
#
#   docker build --build-arg VERSION=$(git describe --always --dirty) -t glimpse .

# --- renderer: npm ci && npm run build -> renderer/dist/app ---------------
FROM node:20-bookworm-slim AS renderer
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    PERCY_POSTINSTALL_BROWSER=false \
    CI=true
WORKDIR /src
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.app.json ./
COPY renderer ./renderer
RUN npm run build

# --- binary: a static Go build with the renderer embedded ---------------
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
COPY --from=renderer /src/renderer/dist/app ./renderer/dist/app
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    test -f renderer/dist/app/index.html && \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /glimpse . && \
    /glimpse version

# --- runtime -------------------------------------------------------------
FROM alpine:3.22
RUN apk add --no-cache ca-certificates tzdata \
 && addgroup -S -g 10001 glimpse \
 && adduser -S -D -H -u 10001 -G glimpse -s /sbin/nologin glimpse \
 && mkdir -p /data \
 && chown 10001:10001 /data
COPY --from=build /glimpse /glimpse
ENV GLIMPSE_ADDR=0.0.0.0:8080 \
    GLIMPSE_DATA_DIR=/data
# /data only matters for the embedded database (no MONGODB_URI): mount a
# volume there (docker run -v glimpse-data:/data ...) to keep it. No VOLUME
# line, so the compose stack (MongoDB) leaves no anonymous volumes behind.
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8080/readyz"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/glimpse"]
CMD ["serve"]
