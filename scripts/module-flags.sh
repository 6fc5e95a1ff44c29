# Sourced, not run: builds SweepKit in the tests' build folder and sets `flags` to what the
# Swift tools that read its module (swift-symbolgraph-extract, swift-api-digester) need to
# find it and the C modules under it. Shared by symbol-graph.sh and api-check.sh.
swift build -c release -Xswiftc -enable-testing --build-path .build/test --target SweepKit
flags=(-I .build/test/release/Modules)
for map in Sources/C*/module.modulemap; do flags+=(-Xcc "-fmodule-map-file=$PWD/$map"); done
for dir in $(pkg-config --cflags-only-I pangocairo libheif libwebpdemux libavformat); do flags+=(-Xcc "$dir"); done
