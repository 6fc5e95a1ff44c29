import Foundation
import SweepPipeline
import SweepRequest

/// The OpenAPI 3.0 document served at `/v1/openapi.json`: every route, its answers and
/// their schemas.
package enum OpenAPIDocument {
    static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }

    static func jsonBody(_ schema: String, _ description: String, headers: [String: Any]? = nil) -> [String: Any] {
        var r: [String: Any] = ["description": description, "content": ["application/json": ["schema": ref(schema)]]]
        if let headers { r["headers"] = headers }
        return r
    }

    static func error(_ description: String, headers: [String: Any]? = nil) -> [String: Any] {
        jsonBody("Error", description, headers: headers)
    }

    static var idParameter: [String: Any] {
        [
            "name": "id", "in": "path", "required": true, "schema": ["type": "string", "pattern": "^[0-9a-f]{32}$"],
        ]
    }

    /// The multipart body of a render (`still` false) or a preview: `spec` is sent as JSON.
    static func upload(still: Bool, names: [PresetLibrary.Kind: [String]]) -> [String: Any] {
        [
            "required": true,
            "content": [
                "multipart/form-data": [
                    "schema": [
                        "type": "object", "required": ["before", "spec"],
                        "properties": [
                            "before": ["type": "string", "format": "binary", "description": "The before image or clip."],
                            "after": ["type": "string", "format": "binary", "description": "The after image or clip (optional)."],
                            "spec": spec(still: still, names: names),
                        ],
                    ],
                    "encoding": ["spec": ["contentType": "application/json"]],
                ]
            ],
        ]
    }

    /// The spec's schema: render's long options (a value: a string or number, or a list of
    /// them for a repeated option; a switch: a boolean), `output` a bare file name.
    static func spec(still: Bool, names: [PresetLibrary.Kind: [String]]) -> [String: Any] {
        let extensions = still ? "png|jpg|jpeg|webp" : "gif|mp4|m4v|mov|webm|mkv|webp|apng|html|png|jpg|jpeg"
        var properties: [String: Any] = [
            "output": [
                "type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\\.(\(extensions))$",
                "description": "A bare file name; its extension picks the format.",
            ]
        ]
        // The keys the service decodes (``RequestKeys``: a list repeats an option), with the
        // option table's help: the document cannot drift from what a spec accepts. A poster is
        // a second file, which the service refuses.
        for group in OptionTable.groups {
            for d in group.options where RequestKeys.options[d.name] != nil && d.name != "poster" {
                var p: [String: Any] = ["type": "boolean"]
                if d.values != .none {
                    let one = Self.value(d.values)
                    p = ["anyOf": one + [["type": "array", "items": ["anyOf": one]]]]
                }
                p["description"] = group.help
                properties[d.name] = p
            }
        }
        for (key, kind) in ServeSpec.namedKeys { properties[key] = ["type": "string", "enum": names[kind] ?? []] }
        return [
            "type": "object", "required": ["output"], "additionalProperties": false, "properties": properties,
            "description":
                "A batch job's keys (render's long option names, sweep render --help); before and after are the uploaded parts; format, preset, look and before-look take built-in names only.",
        ]
    }

    /// The schemas one value of an option may match, from its declared ``OptionValues``: a
    /// number's range as JSON's minimum and maximum, a choice as an enum (aliases included).
    /// A number may also come as a string ("0.5"), which only the service checks; any value
    /// may come as a JSON number, which the service reads as its text (a colour 123456).
    static func value(_ values: OptionValues) -> [[String: Any]] {
        let text: [String: Any] = ["type": "string"], number: [String: Any] = ["type": "number"]
        switch values {
        case .none: return [["type": "boolean"]]
        case let .number(r): return [["type": "number", "minimum": r.lowerBound, "maximum": r.upperBound], text]
        case let .whole(r): return [["type": "integer", "minimum": r.lowerBound, "maximum": r.upperBound], text]
        case let .choice(words, aliases): return [["type": "string", "enum": words + aliases]]
        case let .choiceOrWhole(words, r):
            return [
                ["type": "string", "enum": words], ["type": "integer", "minimum": r.lowerBound, "maximum": r.upperBound],
                ["type": "string", "pattern": "^\\+?[0-9]+$"],
            ]
        case .time: return [["type": "number", "minimum": 0, "maximum": ValueParser.longestTime], text]
        case let .bytes(minimum): return [["type": "number", "minimum": minimum, "maximum": ValueParser.maxBytes], text]
        case let .size(r): return [["type": "integer", "minimum": r.lowerBound, "maximum": r.upperBound], text]
        case .color:
            // #RRGGBB, #RRGGBBAA or a name in any case, as the parser reads them.
            let names = ["white", "black", "transparent"].map { $0.map { "[\($0)\($0.uppercased())]" }.joined() }
            return [
                ["type": "string", "pattern": "^(#?[0-9A-Fa-f]{6}([0-9A-Fa-f]{2})?|" + names.joined(separator: "|") + ")$"], number,
            ]
        case .text: return [text, number]
        }
    }

    static var common: [String: Any] {
        [
            "400": error("A bad spec or request (exit 64)."), "401": error("Missing or wrong bearer token."),
            "413": error(
                "The upload, or a pixel, byte or memory limit, is over the limit; or the render's estimated time (estimatedSeconds) is over --max-render-seconds."
            ),
            "404": error("An input went missing (exit 66)."),
            "415": error("An input sweep cannot read (exit 69), or a body that is not multipart/form-data."),
            "422": error("An input that is not valid (exit 65)."),
            "500": error("The server could not write or read a file (exit 73, 74)."),
        ]
    }

    nonisolated(unsafe) static let retryAfter: [String: Any] = [
        "Retry-After": ["schema": ["type": "integer"], "description": "Seconds to wait."]
    ]

    /// The document; `secured` when a token is asked for, `names` the built-in presets.
    static func document(secured: Bool, names: [PresetLibrary.Kind: [String]]) -> [String: Any] {
        var d: [String: Any] = [
            "openapi": "3.0.3",
            "info": [
                "title": "sweep render service", "version": "1",
                "description": "Renders animated before/after comparisons (GIF, video, stills, pages) from uploads.",
            ],
            "components": [
                "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer"]],
                "schemas": [
                    "Error": [
                        "type": "object", "required": ["error", "exit"],
                        "properties": [
                            "error": ["type": "string", "description": "The CLI's one-line message."],
                            "exit": ["type": "integer", "description": "The CLI's exit code."],
                        ],
                    ],
                    "Accepted": [
                        "type": "object", "required": ["id", "state"],
                        "properties": ["id": ["type": "string"], "state": ["type": "string", "enum": ["queued", "running"]]],
                    ],
                    "Summary": [
                        "type": "object", "required": ["output", "format", "bytes", "width", "height", "frames", "fps", "duration"],
                        "additionalProperties": true,
                        "properties": [
                            "output": ["type": "string"], "format": ["type": "string"], "bytes": ["type": "integer"],
                            "width": ["type": "integer"], "height": ["type": "integer"], "frames": ["type": "integer"],
                            "framesWritten": ["type": "integer"], "fps": ["type": "number"], "duration": ["type": "number"],
                            "seconds": ["type": "number"], "notes": ["type": "array", "items": ["type": "string"]],
                        ],
                    ],
                    "Render": [
                        "type": "object", "required": ["id", "state", "progress", "notes", "output"],
                        "properties": [
                            "id": ["type": "string"], "state": ["type": "string", "enum": ["queued", "running", "done", "failed"]],
                            "progress": ["type": "number", "minimum": 0, "maximum": 1],
                            "notes": ["type": "array", "items": ["type": "string"]],
                            "output": ["type": "string"], "summary": ref("Summary"),
                            "error": ["type": "string"], "exit": ["type": "integer"],
                        ],
                    ],
                    "Health": ["type": "object", "required": ["status"], "properties": ["status": ["type": "string", "enum": ["ok"]]]],
                ],
            ],
            "paths": [
                "/v1/health": [
                    "get": [
                        "summary": "Liveness.", "operationId": "health", "security": [[String: Any]](),
                        "responses": ["200": jsonBody("Health", "The server is up.")],
                    ]
                ],
                "/v1/openapi.json": [
                    "get": [
                        "summary": "This document.", "operationId": "openapi",
                        "responses": [
                            "200": [
                                "description": "The OpenAPI document.", "content": ["application/json": ["schema": ["type": "object"]]],
                            ],
                            "401": error("Missing or wrong bearer token."),
                        ],
                    ]
                ],
                "/metrics": [
                    "get": [
                        "summary": "Prometheus metrics.", "operationId": "metrics",
                        "responses": [
                            "200": ["description": "The text format.", "content": ["text/plain": ["schema": ["type": "string"]]]],
                            "401": error("Missing or wrong bearer token."),
                        ],
                    ]
                ],
                "/v1/renders": [
                    "post": [
                        "summary": "Queue a render.", "operationId": "createRender", "requestBody": upload(still: false, names: names),
                        "responses": common.merging([
                            "202": accepted,
                            "429": error("The queue is full (answered at the headers, before the body).", headers: retryAfter),
                            "503": error("The server is shutting down.", headers: retryAfter),
                            "507": error("The store is full (--max-store).", headers: retryAfter),
                        ]) { a, _ in a },
                    ]
                ],
                "/v1/previews": [
                    "post": [
                        "summary": "Render one still now (png, jpg or webp by the output's name).", "operationId": "createPreview",
                        "requestBody": upload(still: true, names: names),
                        "responses": common.merging([
                            "200": [
                                "description": "The still.",
                                "content": [
                                    "image/png": ["schema": ["type": "string", "format": "binary"]],
                                    "image/jpeg": ["schema": ["type": "string", "format": "binary"]],
                                    "image/webp": ["schema": ["type": "string", "format": "binary"]],
                                ],
                            ],
                            "429": error("Every render place is taken.", headers: retryAfter),
                            "503": error("The server is shutting down.", headers: retryAfter),
                            "507": error("The store is full (--max-store).", headers: retryAfter),
                        ]) { a, _ in a },
                    ]
                ],
                "/v1/renders/{id}": [
                    "parameters": [idParameter],
                    "get": [
                        "summary": "A render's state, progress, notes and summary.", "operationId": "getRender",
                        "responses": [
                            "200": jsonBody("Render", "The render."), "401": error("Missing or wrong bearer token."),
                            "404": error("No such render."),
                        ],
                    ],
                    "delete": [
                        "summary": "Cancel and remove a render.", "operationId": "deleteRender",
                        "responses": [
                            "204": ["description": "Removed."], "401": error("Missing or wrong bearer token."),
                            "404": error("No such render."),
                        ],
                    ],
                ],
                "/v1/renders/{id}/output": [
                    "parameters": [idParameter],
                    "get": [
                        "summary": "The output file.", "operationId": "getRenderOutput",
                        "responses": [
                            "200": [
                                "description": "The file, with its Content-Type, Content-Length and ETag.",
                                "headers": ["ETag": ["schema": ["type": "string"]]],
                                "content": Dictionary(
                                    uniqueKeysWithValues: Set(RenderService.contentTypes.values).sorted().map {
                                        ($0, ["schema": ["type": "string", "format": "binary"]] as [String: Any])
                                    }),
                            ],
                            "304": ["description": "Not modified (If-None-Match)."], "401": error("Missing or wrong bearer token."),
                            "404": error("No such render, or its output expired."), "409": error("The render is not done."),
                        ],
                    ],
                ],
                "/v1/renders/{id}/events": [
                    "parameters": [idParameter],
                    "get": [
                        "summary":
                            "Server-Sent Events: progress, then the final state (or interrupted, when the server stops first and keeps the render for its restart).",
                        "operationId": "getRenderEvents",
                        "responses": [
                            "200": ["description": "The event stream.", "content": ["text/event-stream": ["schema": event]]],
                            "401": error("Missing or wrong bearer token."), "404": error("No such render."),
                            "429": error("Too many event streams are open; poll the render instead.", headers: retryAfter),
                        ],
                    ],
                ],
            ],
        ]
        d["paths"] = (d["paths"] as? [String: Any] ?? [:]).merging(studioPaths(names: names)) { a, _ in a }
        if secured {
            d["security"] = [["bearer": [String]()]]
        } else if var paths = d["paths"] as? [String: [String: Any]] {
            // Without a token, a request from another site's page (Host, Origin) is refused.
            for (path, item) in paths {
                for (method, operation) in item {
                    guard var o = operation as? [String: Any], var responses = o["responses"] as? [String: Any] else { continue }
                    responses["403"] = error("A request from another site's page (its Host or Origin names another server).")
                    o["responses"] = responses
                    paths[path]?[method] = o
                }
            }
            d["paths"] = paths
        }
        return d
    }

    /// One Server-Sent Event: `progress` (data: id, state, progress), then `state` (data: the
    /// render, as GET /v1/renders/{id} answers) or `gone` (data: the id of a deleted render).
    static var event: [String: Any] {
        [
            "type": "object", "required": ["event", "data"],
            "properties": [
                "event": ["type": "string", "enum": ["progress", "state", "gone"]],
                "data": ["type": "string", "description": "A JSON object."],
            ],
        ]
    }

    /// The 202 of a submission, with links to the render's routes (by its id).
    static var accepted: [String: Any] {
        var r = jsonBody(
            "Accepted", "Queued.", headers: ["Location": ["schema": ["type": "string"], "description": "The render's URL."]])
        let id: [String: Any] = ["id": "$response.body#/id"]
        r["links"] = [
            "GetRender": ["operationId": "getRender", "parameters": id],
            "GetRenderOutput": ["operationId": "getRenderOutput", "parameters": id],
            "GetRenderEvents": ["operationId": "getRenderEvents", "parameters": id],
            "DeleteRender": ["operationId": "deleteRender", "parameters": id],
        ]
        return r
    }

    /// The document's bytes.
    package static func bytes(secured: Bool, library: PresetLibrary) -> [UInt8] {
        let names = Dictionary(uniqueKeysWithValues: PresetLibrary.Kind.allCases.map { ($0, library.names($0)) })
        let d = document(secured: secured, names: names)
        return Array((try? JSONSerialization.data(withJSONObject: d, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
    }
}
