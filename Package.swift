// swift-tools-version:6.0
import PackageDescription

// Settings every Swift target shares (swift-nio's habit): strict Swift 6 plus the
// upcoming features that keep imports and existentials explicit.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "sweep",
    products: [
        .executable(name: "sweep", targets: ["sweep"]),
        .library(name: "SweepKit", targets: ["SweepKit"]),
    ],
    targets: [
        // C shims: a module map and one header each, no logic.
        .systemLibrary(
            name: "CGIF", path: "Sources/CGIF",
            providers: [.apt(["libgif-dev"])]),
        .systemLibrary(
            name: "CFFmpeg", path: "Sources/CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]),
        .systemLibrary(
            name: "CPangoCairo", path: "Sources/CPangoCairo", pkgConfig: "pangocairo",
            providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        .systemLibrary(
            name: "CLCMS2", path: "Sources/CLCMS2",
            providers: [.apt(["liblcms2-dev"])]),
        // zlib: only to inflate PNG colour profiles under a cap before FFmpeg sees them.
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"])]),
        // libheif: HEIC/HEIF and AVIF photos (its HEVC and AV1 decoders sit behind it).
        .systemLibrary(
            name: "CHeif", path: "Sources/CHeif", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),

        // libwebp's animation decoder: animated WebP inputs played as clips (FFmpeg 5.1 reads only their first frame).
        .systemLibrary(
            name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"])]),

        // The decode worker's plumbing: libseccomp's filter, descriptors over a socket.
        .systemLibrary(
            name: "CWorker", path: "Sources/CWorker",
            providers: [.apt(["libseccomp-dev"])]),

        // System calls glibc has no wrapper for (openat2: opening beneath a folder).
        .systemLibrary(name: "CSystem", path: "Sources/CSystem"),

        // libmicrohttpd: the render service's HTTP server (sweep serve).
        .systemLibrary(
            name: "CMicroHTTPD", path: "Sources/CMicroHTTPD",
            providers: [.apt(["libmicrohttpd-dev"])]),

        // Shared plumbing: typed errors, atomic output files, confined folders.
        .target(name: "SweepSupport", dependencies: ["CSystem"]),
        // Imaging core: pixels, resampling, adjustments, the slider look (Pango/Cairo for vectors and text).
        .target(name: "SweepImaging", dependencies: ["CPangoCairo", "CLCMS2", "SweepSupport"]),
        // Timeline: keyframes, easing, springs, sampling. Pure Swift.
        .target(name: "SweepTimeline"),
        // The interactive page: the <sweep-compare> element, its script and style, the page around it. Pure Swift.
        .target(name: "SweepWeb", dependencies: ["SweepImaging", "SweepTimeline"]),
        // Encoders.
        .target(name: "SweepGIF", dependencies: ["CGIF", "SweepImaging", "SweepSupport"]),
        .target(name: "SweepMedia", dependencies: ["CFFmpeg", "CZlib", "CHeif", "CWebP", "SweepImaging", "SweepSupport"]),
        // Decoding untrusted files in child processes, under limits and a system-call filter.
        .target(name: "SweepWorker", dependencies: ["CWorker", "SweepMedia", "SweepImaging", "SweepSupport"]),
        // Pipeline: spec -> timeline -> frames -> encoder.
        .target(
            name: "SweepPipeline",
            dependencies: [
                "SweepImaging", "SweepTimeline", "SweepGIF", "SweepMedia", "SweepWeb", "SweepWorker", "SweepSupport",
            ]),
        // The embedding API: one import for apps.
        .target(
            name: "SweepKit",
            dependencies: [
                "SweepPipeline", "SweepImaging", "SweepTimeline", "SweepSupport", "SweepWorker", "SweepMedia", "SweepRequest",
            ]),
        // A render request, whichever door it comes through: the option table (flags, batch
        // keys, the service's spec keys, the studio's controls), parsing, resolution, running.
        .target(
            name: "SweepRequest",
            dependencies: ["SweepPipeline", "SweepImaging", "SweepMedia", "SweepTimeline", "SweepGIF", "SweepSupport", "SweepWorker"]),
        // CLI library and the tiny executable.
        .target(
            name: "SweepCLI",
            dependencies: [
                "SweepRequest", "SweepPipeline", "SweepImaging", "SweepMedia", "SweepTimeline", "SweepGIF", "SweepSupport", "SweepWorker",
            ]),
        // The render service (sweep serve): HTTP through libmicrohttpd, renders through SweepRequest.
        .target(
            name: "SweepServe",
            dependencies: [
                "CMicroHTTPD", "SweepRequest", "SweepPipeline", "SweepMedia", "SweepSupport", "SweepWeb", "SweepImaging", "SweepTimeline",
            ]),
        .executableTarget(name: "sweep", dependencies: ["SweepCLI", "SweepServe", "SweepWorker"]),
        // libFuzzer entry point (Fuzz/run.sh builds it with -sanitize=fuzzer; not a product).
        .target(
            name: "SweepFuzz",
            dependencies: ["SweepRequest", "SweepMedia", "SweepImaging", "SweepPipeline", "SweepSupport", "SweepWorker"],
            path: "Fuzz",
            exclude: ["run.sh", "seeds.sh"]),
        // Benchmarks of the imaging core (the side-by-side runs with peers are Benchmarks/run.sh).
        .executableTarget(
            name: "sweep-framebench", dependencies: ["SweepPipeline", "SweepImaging", "SweepTimeline"],
            path: "Benchmarks/FrameBench"),

        // Test-only readers (giflib and libav decoders) that check what the encoders wrote.
        // Not shipped: the one-importer rule for CGIF and CFFmpeg applies to the products'
        // modules, and this target sits beside them only so the tests can share it.
        .target(
            name: "SweepTestSupport", dependencies: ["CGIF", "CFFmpeg", "SweepImaging", "SweepMedia", "SweepSupport"],
            path: "Tests/SweepTestSupport"),

        .testTarget(name: "SweepImagingTests", dependencies: ["SweepImaging"]),
        .testTarget(name: "SweepTimelineTests", dependencies: ["SweepTimeline"]),
        .testTarget(name: "SweepWebTests", dependencies: ["SweepWeb", "SweepImaging", "SweepTimeline"]),
        .testTarget(name: "SweepGIFTests", dependencies: ["SweepTestSupport", "SweepGIF", "SweepMedia", "SweepImaging", "SweepSupport"]),
        .testTarget(
            name: "SweepMediaTests",
            dependencies: ["SweepTestSupport", "CFFmpeg", "CZlib", "SweepMedia", "SweepImaging", "SweepSupport"]),
        .testTarget(
            name: "SweepPipelineTests",
            dependencies: [
                "SweepTestSupport", "SweepPipeline", "SweepGIF", "SweepMedia", "SweepImaging", "SweepSupport", "SweepTimeline",
                "SweepWorker",
            ]),
        .testTarget(name: "SweepKitTests", dependencies: ["SweepTestSupport", "SweepKit", "SweepGIF", "SweepMedia", "SweepImaging"]),
        .testTarget(
            name: "SweepCLITests",
            dependencies: [
                "SweepTestSupport", "SweepCLI", "SweepRequest", "SweepPipeline", "SweepGIF", "SweepImaging", "SweepTimeline",
                "SweepSupport",
                "SweepMedia", "SweepWorker",
            ]),
        .testTarget(
            name: "SweepServeTests",
            dependencies: [
                "SweepTestSupport", "SweepServe", "SweepCLI", "SweepRequest", "SweepKit", "SweepImaging", "SweepMedia", "SweepSupport",
                "SweepPipeline",
                "SweepWeb",
            ]),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
