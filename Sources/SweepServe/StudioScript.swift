/// The studio's script (the page's own; the `<sweep-compare>` element is ``ElementScript``,
/// unchanged). It keeps one settings object, read from the controls, and derives everything
/// from it: the `sweep render …` line, the batch job line, the spec sent to the API and the
/// preview's spec. The preview asks the server for the element's configuration
/// (`/studio/element`: the timeline, size and overlay the render would use, built by the
/// render's own code) and mounts a fresh element with the pictures' object URLs, keeping the
/// play time, so a change shows at once in the same element and timeline the page export uses.
/// The pictures fill the frame as the render's `fit` says (the configuration's `fit`).
///
/// What the browser cannot decode or would play otherwise (HEIC, HEIF, AVIF, clips, animated
/// GIF, WebP and PNG, which the render plays as clips; a picture it fails to load), and
/// pictures whose colours it would show otherwise than the export (HDR: the server says so
/// from the files' heads, ``StudioProbe``) are previewed from stills the server draws
/// (``StudioFrame``): the files are uploaded once,
/// each moment asked for is cached by its settings and position, a scrub asks for its moment
/// after a short pause, and playing steps through 8 moments of the timeline. The page says
/// that the server draws the preview, and shows the server's refusal when there is one; the
/// upload is deleted when other files are chosen or the page is left.
///
/// Choosing a still format (og-image) makes the export a PNG still; choosing an animated
/// format makes it an animation again (the kind chosen before).
///
/// Progress comes from the render's event stream read through `fetch` (not `EventSource`, which
/// cannot send the bearer token a server with `--token` asks for); with a token the output is
/// fetched too and offered as a `blob:` download, without one the link is the output's URL.
///
/// Under `prefers-reduced-motion: reduce` the preview does not start on its own (the
/// element's play button and the timeline scrubber still work).
enum StudioScript {
    /// The JavaScript text.
    static let source = #"""
        (()=>{
        const $=s=>document.getElementById(s),M=Math,D=JSON.parse($('studio-data').textContent),
        form=$('form'),bar=$('progress'),dl=$('download'),btn=$('export'),scrub=$('scrub'),stage=$('stage'),
        SC=customElements.get('sweep-compare'),rmq=matchMedia('(prefers-reduced-motion: reduce)');
        let files=[null,null],urls=[null,null],dims=null,el=null,T=null,seq=0,blob=null,picks=0,
        srv=null,ctl=null,shots=new Map(),at=0,len=0,fseq=0,playing=false,plays=0,wait=null,back=null;
        const say=t=>{$('status').textContent=t},STEPS=8,play=$('play'),served=$('served');
        const kind=()=>$('output-type').value,isStill=k=>k=='png'||k=='poster';
        function settings(){const o=[],k=kind();
        for(const d of D.options){const c=$('o-'+d.n);if(!c)continue;
        if(d.k=='switch'){if(c.checked)o.push([d.n,true])}
        else if(c.value.trim()!=='')o.push([d.n,d.k=='number'?+c.value:c.value])}
        if(k=='poster'&&!o.some(x=>x[0]=='format'))o.push(['size','1200x630']);
        return{inputs:files.filter(Boolean).map(f=>f.name),output:D.outputs[k],still:isStill(k),options:o}}
        const quote=a=>/^[A-Za-z0-9_@%+=:,.\/-]+$/.test(a)?a:"'"+a.replace(/'/g,"'\\''")+"'";
        const command=S=>['sweep',S.still?'preview':'render',...(S.inputs.length?S.inputs:['BEFORE']),
        ...S.options.flatMap(([n,v])=>v===true?['--'+n]:['--'+n,String(v)]),'-o',S.output].map(quote).join(' ');
        const spec=S=>{const j={};for(const[n,v]of S.options)j[n]=v;j.output=S.output;return j};
        const job=S=>{const j={before:S.inputs[0]||'BEFORE'};if(S.inputs[1])j.after=S.inputs[1];return Object.assign(j,spec(S))};
        async function update(){const S=settings();
        $('command').textContent=command(S);$('job').textContent=JSON.stringify(job(S));
        if(srv){clearTimeout(wait);if(!playing)wait=setTimeout(()=>draw(at),200);return}
        if(!dims)return;const n=++seq;
        const q=new URLSearchParams({spec:JSON.stringify(spec(S)),w:dims[0],h:dims[1],two:files[1]?1:0,still:S.still?1:0});
        let r,j;try{r=await fetch('/studio/element?'+q);j=await r.json()}catch(e){if(n==seq)say('The server cannot be reached.');return}
        if(n!=seq)return;if(!r.ok){say(j.error);return}
        mount(j)}
        function mount(C){const e=document.createElement('sweep-compare'),v=n=>$('o-'+n);e.dataset.fit=C.fit;
        e.setAttribute('before',urls[0]);e.setAttribute('after',urls[1]||urls[0]);
        for(const s of['before','after']){const t=v(s+'-label').value;if(t)e.setAttribute(s+'-label',t)}
        if(v('vertical').checked)e.setAttribute('vertical','');if(v('rtl').checked)e.dir='rtl';
        e.setAttribute('aria-label','Preview of the comparison');
        const j=document.createElement('script');j.type='application/json';j.textContent=JSON.stringify(C);e.append(j);
        const was=el?el.playing:1,t=el?el.e||0:0;stage.replaceChildren(e);el=e;T=C.t;
        el.e=t;if(T)el.show(el.at(SC.fold(T,t)[0]));
        if(T&&was&&!rmq.matches)el.play();else el.pause();sync()}
        function sync(){if(el&&T&&T.d>0)scrub.value=M.round(SC.fold(T,el.e||0)[0]/T.d*1000)}
        (function tick(){if(el&&el.playing)sync();requestAnimationFrame(tick)})();
        scrub.oninput=()=>{if(srv){stop();at=scrub.value/1000;clearTimeout(wait);wait=setTimeout(()=>draw(at),120);return}
        if(!el||!T)return;el.pause();const t=scrub.value/1000*T.d;el.e=t;el.dn=0;el.show(el.at(t))};
        rmq.addEventListener('change',()=>{if(rmq.matches){if(el)el.pause();stop()}});
        const remote=f=>/^video\//.test(f.type)||/^image\/(hei[cf]|avif)/.test(f.type)||/\.(hei[cf]|avif)$/i.test(f.name),
        size=u=>new Promise(r=>{const im=new Image();im.onload=()=>r([im.naturalWidth,im.naturalHeight]);im.onerror=()=>r(null);im.src=u}),
        moving=async f=>{if(!/^image\/(gif|webp|png|apng)$/.test(f.type)||!window.ImageDecoder)return false;
        try{const d=new ImageDecoder({data:f.stream(),type:f.type});await d.tracks.ready;const a=!!d.tracks.selectedTrack?.animated;d.close();return a}
        catch(e){return false}};
        function take(i,f){if(!f)return;if(urls[i])URL.revokeObjectURL(urls[i]);files[i]=f;urls[i]=URL.createObjectURL(f);
        const inp=$(i?'after':'before');if(inp.files[0]!==f){const t=new DataTransfer();t.items.add(f);inp.files=t.files}
        $(i?'after-name':'before-name').textContent=f.name;return choose()}
        async function choose(){const n=++picks,d=[];if(!files[0])return update();
        for(const j of[0,1])d[j]=!files[j]||(!remote(files[j])&&!await moving(files[j])&&await size(urls[j]));
        if(n!=picks)return;const why=d[0]&&d[1]?await colour():'';if(n!=picks)return;
        if(d[0]&&d[1]&&!why){dims=d[0];release();return update()}
        dims=null;release();const b=new FormData(),names=files.filter(Boolean).map(f=>f.name).join(' and ');
        b.append('before',files[0]);if(files[1])b.append('after',files[1]);
        say('Sending '+names+' to the server, which draws the preview…');let r,j;
        try{r=await fetch('/studio/uploads',{method:'POST',body:b,headers:auth()});j=await r.json()}
        catch(e){if(n==picks)say('The server cannot be reached.');return}
        if(n!=picks){if(r.ok)forget(j.id);return}
        if(!r.ok){say('The server cannot preview '+names+': '+j.error);return}
        srv=j.id;ctl=new AbortController();at=0;const im=document.createElement('img');im.id='frame';im.alt='Preview of the comparison, drawn by the server';
        stage.replaceChildren(im);el=null;T=null;served.hidden=play.hidden=false;
        served.textContent='Previewed by the server: sweep draws each moment of '+names+' as the export will show it'+
        (why?' ('+why+', which this browser would show otherwise).':'.');
        say('');update();if(!rmq.matches)start()}
        // Whether pictures the browser decodes must still be drawn by the server (HDR colour): the
        // server reads the heads of the files as sweep's decoders do; a failed probe leaves them to the browser.
        async function colour(){const b=new FormData();files.forEach((f,j)=>f&&b.append(j?'after':'before',f.slice(0,D.head),f.name));
        try{const r=await fetch('/studio/probe',{method:'POST',body:b}),j=await r.json();return r.ok&&j.server?j.why:''}catch(e){return''}}
        const forget=id=>fetch('/studio/uploads/'+id,{method:'DELETE',headers:auth(),keepalive:true}).catch(()=>{});
        // Frames still on their way are abandoned (a frame asked of a removed upload is a 404).
        function release(){if(!srv)return;ctl.abort();clearTimeout(wait);forget(srv);srv=null;stop();for(const v of shots.values())URL.revokeObjectURL(v.u);shots.clear();
        served.hidden=play.hidden=true}
        addEventListener('pagehide',release);
        // One frame asked at a time: the server draws each in one of its preview places, so a
        // second at once (a scrub while playing) would be refused; a refusal for other clients'
        // previews is asked again after the Retry-After the server gives, a few times.
        let line=Promise.resolve();const one=f=>{const p=line.then(f,f);line=p.then(()=>{},()=>{});return p};
        async function ask(u){for(let i=0;;i++){const r=await fetch(u,{headers:auth(),signal:ctl.signal});if(r.status!=429||i>=4)return r;
        await new Promise(z=>setTimeout(z,1000*M.min(5,+r.headers.get('Retry-After')||1)))}}
        async function shot(S,a){if(!srv)return null;const id=srv,sp=JSON.stringify(spec(S)),k=sp+'|'+S.still+'|'+a;let v=shots.get(k);if(v)return v;
        const q=new URLSearchParams({spec:sp,still:S.still?1:0,at:a}),r=await one(()=>shots.has(k)?null:ask('/studio/uploads/'+id+'/frame?'+q));
        if(!r)return shots.get(k)||null;
        if(!r.ok)throw(await r.json()).error;const h=x=>r.headers.get('X-Sweep-'+x)||'',u=URL.createObjectURL(await r.blob());
        if(id!=srv){URL.revokeObjectURL(u);return null}
        v={u,p:h('Position'),s:h('Start'),t:h('Time'),d:+h('Length'),k:sp};shots.set(k,v);
        if(shots.size>48){const[o,w]=shots.entries().next().value,f=$('frame');shots.delete(o);if(!f||w.u!=f.src)URL.revokeObjectURL(w.u)}return v}
        async function draw(a){const n=++fseq,id=srv;let v;try{v=await shot(settings(),a)}
        catch(e){if(n==fseq&&id==srv)say("The server's preview failed: "+e);return false}
        if(n!=fseq||id!=srv||!v)return null;const im=$('frame');if(im.src!=v.u){im.src=v.u;try{await im.decode()}catch(e){}}
        if(n!=fseq||id!=srv)return null;
        Object.assign(im.dataset,{at:a,position:v.p,start:v.s,time:v.t,spec:v.k});len=v.d;scrub.value=M.round(a*1000);
        if($('status').textContent.startsWith("The server's preview failed"))say('');return true}
        async function start(){if(!srv||playing)return;playing=true;play.textContent='Pause';const g=++plays;let k=M.round(at*STEPS);
        while(playing&&g==plays&&srv){k=(k+1)%STEPS;const a=k/STEPS,t0=performance.now(),ok=await draw(a);
        if(ok===false||g!=plays)break;if(ok)at=a;await new Promise(r=>setTimeout(r,M.max(0,(len||1)/STEPS*1000-(performance.now()-t0))))}
        if(g==plays)stop()}
        function stop(){playing=false;plays++;play.textContent='Play'}
        play.onclick=()=>playing?stop():start();
        $('before').onchange=e=>take(0,e.target.files[0]);$('after').onchange=e=>take(1,e.target.files[0]);
        const drop=$('drop');drop.ondragover=e=>{e.preventDefault();drop.classList.add('over')};
        drop.ondragleave=()=>drop.classList.remove('over');
        drop.ondrop=e=>{e.preventDefault();drop.classList.remove('over');const f=[...e.dataTransfer.files];take(0,f[0]);if(f[1])take(1,f[1])};
        // A format decides the kind of export before the preview asks for it.
        form.oninput=e=>{if(e.target.id=='o-format')kindOf(e.target.value);update()};form.onsubmit=e=>e.preventDefault();
        function kindOf(f){const o=$('output-type');
        if(D.stills.includes(f)){if(!isStill(o.value)){back=o.value;o.value='png'}}else if(f&&isStill(o.value))o.value=back||'gif'}
        function ready(href,name){dl.href=href;dl.download=name;dl.textContent='Download '+name;dl.hidden=false;bar.value=1;say(name+' is ready to download.')}
        const auth=()=>{const t=$('token');return t&&t.value?{Authorization:'Bearer '+t.value}:{}};
        async function events(id,on){const r=await fetch('/v1/renders/'+id+'/events',{headers:auth()});if(!r.ok)throw(await r.json()).error;
        const rd=r.body.getReader(),dec=new TextDecoder();let buf='';
        for(;;){const{value,done}=await rd.read();if(done)return;buf+=dec.decode(value,{stream:true});let i;
        while((i=buf.indexOf('\n\n'))>=0){const ev=buf.slice(0,i),n=/^event: (.*)$/m.exec(ev),d=/^data: (.*)$/m.exec(ev);buf=buf.slice(i+2);
        if(n&&d&&on(n[1],JSON.parse(d[1])))return rd.cancel()}}}
        async function fetched(href,name){const r=await fetch(href,{headers:auth()});if(!r.ok)throw(await r.json()).error;
        if(blob)URL.revokeObjectURL(blob);blob=URL.createObjectURL(await r.blob());ready(blob,name)}
        btn.onclick=async()=>{const S=settings();if(!files[0]){say('Choose a before picture first.');return}
        const b=new FormData();b.append('before',files[0]);if(files[1])b.append('after',files[1]);b.append('spec',JSON.stringify(spec(S)));
        bar.value=0;dl.hidden=true;btn.disabled=true;say('Exporting '+S.output+'…');
        try{if(S.still){const r=await fetch('/v1/previews',{method:'POST',body:b,headers:auth()});if(!r.ok)throw(await r.json()).error;
        if(blob)URL.revokeObjectURL(blob);blob=URL.createObjectURL(await r.blob());ready(blob,S.output);return}
        const r=await fetch('/v1/renders',{method:'POST',body:b,headers:auth()}),j=await r.json();if(!r.ok)throw j.error;
        let end=null;await events(j.id,(n,d)=>{if(n=='progress'){bar.value=d.progress;say('Rendering '+S.output+': '+M.round(d.progress*100)+' %')}
        else if(n=='state'||n=='gone'){end=d;return 1}});
        if(!end||end.state!='done')throw end?end.error||'the render was removed':'the progress stream broke off';
        const out='/v1/renders/'+j.id+'/output';if($('token'))await fetched(out,S.output);else ready(out,S.output)}
        catch(e){bar.value=0;say('Export failed: '+e)}finally{btn.disabled=false}};
        update()})();
        """#
}
