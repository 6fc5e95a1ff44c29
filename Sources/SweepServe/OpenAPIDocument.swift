import Foundation

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

    nonisolated(unsafe) static let idParameter: [String: Any] = [
        "name": "id", "in": "path", "required": true, "schema": ["type": "string", "pattern": "^[0-9a-f]{32}$"],
    ]

    nonisolated(unsafe) static let upload: [String: Any] = [
        "required": true,
        "content": [
            "multipart/form-data": [
                "schema": [
                    "type": "object", "required": ["before", "spec"],
                    "properties": [
                        "before": ["type": "string", "format": "binary", "description": "The before image or clip."],
                        "after": ["type": "string", "format": "binary", "description": "The after image or clip (optional)."],
                        "spec": [
                            "type": "string",
                            "description":
                                "A JSON object with a batch job's keys (render's long option names); output is a bare file name whose extension picks the format; before and after are set by the server; format, preset, look and before-look take built-in names only.",
                        ],
                    ],
                ]
            ]
        ],
    ]

    nonisolated(unsafe) static let common: [String: Any] = [
        "400": error("A bad spec or request (exit 64)."), "401": error("Missing or wrong bearer token."),
        "413": error("The upload, or a pixel, byte or memory limit, is over the limit."),
        "415": error("An input sweep cannot read (exit 69)."), "422": error("An input that is not valid (exit 65)."),
        "500": error("The server could not write or read a file (exit 73, 74)."),
    ]

    nonisolated(unsafe) static let retryAfter: [String: Any] = [
        "Retry-After": ["schema": ["type": "integer"], "description": "Seconds to wait."]
    ]

    nonisolated(unsafe) static let document: [String: Any] = [
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
        "security": [["bearer": [String]()]],
        "paths": [
            "/v1/health": [
                "get": [
                    "summary": "Liveness.", "security": [[String: Any]](),
                    "responses": ["200": jsonBody("Health", "The server is up.")],
                ]
            ],
            "/v1/openapi.json": [
                "get": [
                    "summary": "This document.",
                    "responses": [
                        "200": ["description": "The OpenAPI document.", "content": ["application/json": ["schema": ["type": "object"]]]],
                        "401": error("Missing or wrong bearer token."),
                    ],
                ]
            ],
            "/metrics": [
                "get": [
                    "summary": "Prometheus metrics.", "security": [[String: Any]](),
                    "responses": ["200": ["description": "The text format.", "content": ["text/plain": ["schema": ["type": "string"]]]]],
                ]
            ],
            "/v1/renders": [
                "post": [
                    "summary": "Queue a render.", "requestBody": upload,
                    "responses": common.merging([
                        "202": jsonBody(
                            "Accepted", "Queued.",
                            headers: ["Location": ["schema": ["type": "string"], "description": "The render's URL."]]),
                        "429": error("The queue is full.", headers: retryAfter),
                        "503": error("The server is shutting down.", headers: retryAfter),
                    ]) { a, _ in a },
                ]
            ],
            "/v1/previews": [
                "post": [
                    "summary": "Render one still now (png, jpg or webp by the output's name).", "requestBody": upload,
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
                    ]) { a, _ in a },
                ]
            ],
            "/v1/renders/{id}": [
                "parameters": [idParameter],
                "get": [
                    "summary": "A render's state, progress, notes and summary.",
                    "responses": [
                        "200": jsonBody("Render", "The render."), "401": error("Missing or wrong bearer token."),
                        "404": error("No such render."),
                    ],
                ],
                "delete": [
                    "summary": "Cancel and remove a render.",
                    "responses": [
                        "204": ["description": "Removed."], "401": error("Missing or wrong bearer token."),
                        "404": error("No such render."),
                    ],
                ],
            ],
            "/v1/renders/{id}/output": [
                "parameters": [idParameter],
                "get": [
                    "summary": "The output file.",
                    "responses": [
                        "200": [
                            "description": "The file, with its Content-Type, Content-Length and ETag.",
                            "headers": ["ETag": ["schema": ["type": "string"]]],
                            "content": ["application/octet-stream": ["schema": ["type": "string", "format": "binary"]]],
                        ],
                        "304": ["description": "Not modified (If-None-Match)."], "401": error("Missing or wrong bearer token."),
                        "404": error("No such render, or its output expired."), "409": error("The render is not done."),
                    ],
                ],
            ],
            "/v1/renders/{id}/events": [
                "parameters": [idParameter],
                "get": [
                    "summary": "Server-Sent Events: progress, then the final state.",
                    "responses": [
                        "200": ["description": "The event stream.", "content": ["text/event-stream": ["schema": ["type": "string"]]]],
                        "401": error("Missing or wrong bearer token."), "404": error("No such render."),
                    ],
                ],
            ],
        ],
    ]

    /// The document's bytes.
    package static let bytes: [UInt8] = Array(
        (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
}
