/// The `<sweep-compare>` element's style sheet, inline in every page (no resource bundle,
/// so the binary stays self-contained). Sizes are points times `--sc-u`, the CSS pixels per
/// point, which the script keeps in step with the element's rendered width.
package enum ElementStyle {
    /// The CSS text.
    package static let source = #"""
        sweep-compare{display:inline-block;position:relative;vertical-align:top;width:var(--sc-w,100%);max-width:100%;line-height:normal;background:var(--sc-bg);--sc-i:calc(var(--sc-u)*var(--sc-li))}
        .sc-f{position:relative;overflow:hidden;aspect-ratio:var(--sc-ar);border-radius:calc(var(--sc-u)*var(--sc-cr));touch-action:pan-y;cursor:ew-resize;user-select:none;-webkit-user-select:none;outline:0}
        sweep-compare[vertical] .sc-f{touch-action:pan-x;cursor:ns-resize}
        .sc-f img{position:absolute;inset:0;width:100%;height:100%;max-width:none;pointer-events:none;object-fit:cover}
        .sc-l,.sc-h,.sc-d{position:absolute;inset:0;width:100%;height:100%;pointer-events:none}
        .sc-d{width:0;height:0}
        .sc-t{position:absolute;top:var(--sc-i);inset-inline-start:var(--sc-i);padding:calc(var(--sc-u)*var(--sc-py)) calc(var(--sc-u)*var(--sc-px));border-radius:999px;background:var(--sc-cc);color:var(--sc-lc);font-family:var(--sc-ff);font-weight:var(--sc-lw);font-size:calc(var(--sc-u)*var(--sc-ls));line-height:normal;white-space:nowrap;unicode-bidi:plaintext;pointer-events:none}
        sweep-compare:not([vertical]) .sc-ta{inset-inline-start:auto;inset-inline-end:var(--sc-i)}
        sweep-compare[vertical] .sc-ta{top:auto;bottom:var(--sc-i)}
        .sc-p{position:absolute;width:max(24px,var(--sc-u)*28);aspect-ratio:1;border:0;border-radius:50%;padding:0;background:#0008;cursor:pointer;display:grid;place-items:center}
        .sc-p[hidden]{display:none}
        .sc-p::before{content:"";box-sizing:border-box;width:34%;height:38%;border:solid #fff;border-width:0 calc(var(--sc-u)*3.5)}
        .sc-play::before{width:0;height:0;margin-inline-start:12%;border-width:calc(var(--sc-u)*6) 0 calc(var(--sc-u)*6) calc(var(--sc-u)*10);border-color:#0000 #0000 #0000 #fff}
        .sc-f:focus-visible,.sc-p:focus-visible{outline:3px solid #49f;outline-offset:2px}
        """#
}
