import SweepMedia
import SweepPipeline

/// The studio's routes in the OpenAPI document: the page, its element configuration, the
/// colour probe and the uploads the server draws previews from (``StudioPreview``,
/// ``StudioProbe``, ``StudioFrame``). They are the studio's, not a versioned API, but they
/// take uploads and render, so they are described like the API's and schemathesis walks them.
extension OpenAPIDocument {
    /// The spec as a query parameter: the same keys as a render's, as JSON text.
    static func specParameter(still: Bool, names: [PresetLibrary.Kind: [String]]) -> [String: Any] {
        [
            "name": "spec", "in": "query", "required": true,
            "description": "The render's spec (the keys of POST /v1/renders' spec part), as JSON text.",
            "content": ["application/json": ["schema": spec(still: still, names: names)]],
        ]
    }

    /// A query flag the page sends as 1 (anything else is 0).
    static func flag(_ name: String, _ description: String) -> [String: Any] {
        ["name": name, "in": "query", "required": false, "description": description, "schema": ["type": "string"]]
    }

    /// A multipart body of `before` and `after` files.
    static func sides(_ before: String, _ after: String) -> [String: Any] {
        [
            "required": true,
            "content": [
                "multipart/form-data": [
                    "schema": [
                        "type": "object", "required": ["before"],
                        "properties": [
                            "before": ["type": "string", "format": "binary", "description": before],
                            "after": ["type": "string", "format": "binary", "description": after],
                        ],
                    ]
                ]
            ],
        ]
    }

    /// The paths under `/` and `/studio`; `common` errors as the API's.
    static func studioPaths(names: [PresetLibrary.Kind: [String]]) -> [String: Any] {
        let upload = "/studio/uploads/{id}"
        let png: [String: Any] = ["image/png": ["schema": ["type": "string", "format": "binary"]]]
        let header: (String) -> [String: Any] = { ["schema": ["type": "string"], "description": $0] }
        let head = HDRSignal.headBytes >> 10
        let id: [String: Any] = ["id": "$response.body#/id"]
        return [
            "/": [
                "get": [
                    "summary": "The studio: a page to preview, tune and export a comparison.", "operationId": "studio",
                    "security": [[String: Any]](),
                    "responses": [
                        "200": ["description": "The page.", "content": ["text/html": ["schema": ["type": "string"]]]]
                    ],
                ]
            ],
            "/studio/element": [
                "get": [
                    "summary":
                        "The live preview's <sweep-compare> configuration for a spec and the before picture's size, built by the render's own rules; renders nothing.",
                    "operationId": "studioElement", "security": [[String: Any]](),
                    "parameters": [
                        specParameter(still: false, names: names),
                        [
                            "name": "w", "in": "query", "required": true, "description": "The before picture's width.",
                            "schema": ["type": "integer", "minimum": 1, "maximum": 100_000],
                        ],
                        [
                            "name": "h", "in": "query", "required": true, "description": "The before picture's height.",
                            "schema": ["type": "integer", "minimum": 1, "maximum": 100_000],
                        ],
                        flag("two", "1: an after picture was chosen."), flag("still", "1: the export is a still."),
                    ],
                    "responses": common.merging([
                        "200": [
                            "description": "The element's configuration, with the pictures' fit.",
                            "content": ["application/json": ["schema": ["type": "object"]]],
                        ]
                    ]) { a, _ in a },
                ]
            ],
            "/studio/probe": [
                "post": [
                    "summary":
                        "Whether pictures the browser decodes must still be previewed by the server, because their colours (HDR) would look otherwise in the browser than in the export.",
                    "operationId": "studioProbe", "security": [[String: Any]](),
                    "requestBody": sides("The before file's first \(head) KiB at most.", "The after file's first \(head) KiB at most."),
                    "responses": [
                        "200": [
                            "description": "The answer; why says what was found.",
                            "content": [
                                "application/json": [
                                    "schema": [
                                        "type": "object", "required": ["server"],
                                        "properties": ["server": ["type": "boolean"], "why": ["type": "string"]],
                                    ]
                                ]
                            ],
                        ],
                        "400": error("A part is missing, unknown or over \(head) KiB."),
                        "415": error("A body that is not multipart/form-data."),
                    ],
                ]
            ],
            "/studio/uploads": [
                "post": [
                    "summary":
                        "Hold the files the server draws the studio's preview from (what the browser cannot decode or would show otherwise); removed when unused for \(Int(StudioUploads.idleSeconds / 60)) minutes.",
                    "operationId": "createStudioUpload",
                    "requestBody": sides("The before picture or clip.", "The after picture or clip (optional)."),
                    "responses": common.merging([
                        "201": [
                            "description": "Held.", "headers": ["Location": header("The upload's URL.")],
                            "content": [
                                "application/json": [
                                    "schema": ["type": "object", "required": ["id"], "properties": ["id": ["type": "string"]]]
                                ]
                            ],
                            "links": [
                                "GetStudioFrame": ["operationId": "getStudioFrame", "parameters": id],
                                "DeleteStudioUpload": ["operationId": "deleteStudioUpload", "parameters": id],
                            ],
                        ],
                        "429": error(
                            "The server holds as many studio uploads as it may, or every preview place is taken.", headers: retryAfter),
                        "503": error("The server is shutting down.", headers: retryAfter),
                        "507": error("The store is full (--max-store).", headers: retryAfter),
                    ]) { a, _ in a },
                ]
            ],
            upload: [
                "parameters": [idParameter],
                "delete": [
                    "summary": "Remove a studio upload (once the frames being drawn from it end).",
                    "operationId": "deleteStudioUpload",
                    "responses": [
                        "204": ["description": "Removed."], "401": error("Missing or wrong bearer token."),
                        "404": error("No such studio upload."),
                    ],
                ],
            ],
            upload + "/frame": [
                "parameters": [idParameter],
                "get": [
                    "summary":
                        "The preview's still at a moment of the export's timeline: sweep preview of the spec with the split, the looks and (for clips) the clip time of that moment.",
                    "operationId": "getStudioFrame",
                    "parameters": [
                        specParameter(still: false, names: names), flag("still", "1: the export is a still."),
                        [
                            "name": "at", "in": "query", "required": true, "description": "The share of the timeline (0…1).",
                            "schema": ["type": "number", "minimum": 0, "maximum": 1],
                        ],
                    ],
                    "responses": common.merging([
                        "200": [
                            "description": "The still, and what it shows.", "content": png,
                            "headers": [
                                "X-Sweep-Size": header("WIDTHxHEIGHT."), "X-Sweep-Position": header("The split (0…1)."),
                                "X-Sweep-Time": header("Seconds into the output."),
                                "X-Sweep-Length": header("The output's length in seconds (one pass for pictures)."),
                                "X-Sweep-Start": header("For clips: the clip time shown, as sweep preview --start."),
                            ],
                        ],
                        "404": error("No such studio upload, or an input went missing."),
                        "429": error("Every preview place is taken.", headers: retryAfter),
                    ]) { a, _ in a },
                ],
            ],
        ]
    }
}
