/// The studio's own style sheet (the element brings its own, ``ElementStyle``): two panes
/// (the preview's stays in view while the controls scroll),
/// system fonts, visible focus, and colours that follow the system's light or dark scheme.
enum StudioStyle {
    /// The CSS text.
    static let source = #"""
        :root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.4}
        body{margin:0;padding:0 1rem 2rem}
        header h1{margin:.6rem 0 0;font-size:1.4rem}header p{margin:.2rem 0 .8rem;opacity:.8}
        main{display:grid;grid-template-columns:minmax(16rem,22rem) 1fr;gap:1.5rem;align-items:start}
        .pane+.pane{position:sticky;top:.5rem}
        @media (max-width:50rem){main{grid-template-columns:1fr}.pane+.pane{position:static}}
        h2{font-size:1.05rem;margin:1rem 0 .4rem}
        fieldset{border:1px solid #8886;border-radius:6px;margin:0 0 .8rem;padding:.4rem .7rem .6rem}
        legend{font-weight:600;padding:0 .3rem}
        .c{display:flex;flex-direction:column;gap:.15rem;margin:.35rem 0}
        .c.s{flex-direction:row;flex-wrap:wrap;align-items:center;gap:.4rem}.c.s small{flex-basis:100%}
        small{opacity:.75;font-size:.78rem}
        input,select,button{font:inherit}
        .drop{border:2px dashed #8888;border-radius:8px;padding:.5rem .8rem;margin-bottom:.8rem}
        .drop.over{border-color:#49f;background:#49f2}
        .stage{min-height:12rem;display:flex;align-items:center;justify-content:center;background:#1d1d1f;border-radius:8px;padding:.5rem}
        .stage sweep-compare{width:100%;max-width:100%}
        .stage sweep-compare[data-fit=fit] .sc-f img{object-fit:contain}.stage sweep-compare[data-fit=stretch] .sc-f img{object-fit:fill}
        .stage img#frame{display:block;width:100%;height:auto}
        .served{margin:.4rem 0;font-size:.85rem}
        .empty{color:#ccc}
        .row{display:flex;gap:.8rem;align-items:center;flex-wrap:wrap}
        progress{width:14rem}
        pre{white-space:pre-wrap;word-break:break-all;background:#8881;padding:.5rem;border-radius:6px;font-size:.85rem}
        :focus-visible{outline:3px solid #49f;outline-offset:2px}
        """#
}
