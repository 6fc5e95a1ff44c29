/// The `<sweep-compare>` custom element, hand-written and framework-free, inline in every
/// page. It ports sweep's timeline maths (SweepTimeline: `UnitBezier`, `Spring`, `Track`,
/// loops, reduce motion) and the look of `SliderOverlay` so that the page moves and looks
/// like the GIF and the video of the same spec.
///
/// In order: `bez` solves a cubic Bézier x → t to 1e-7 (Newton, then bisection, as
/// `UnitBezier`); `disp`/`settle` are `Spring`'s closed form and settling time (0.001),
/// `sc` that time kept on the curve, by which a segment scales the spring's time;
/// `prog` is `Curve.progress` for a curve written `"hold"`, `[x1,y1,x2,y2]` or
/// `[omega,zeta]`; `val`/`move`/`cut` are `Track.value`, `.transition` and `.cut` over
/// `[[time,value,curve],…]`; `fold` maps play time into a pass (once, N, forever,
/// boomerang); `mat` is `Adjustments.matrix` as `feColorMatrix` values. `at` is
/// `Animation.states` with reduce motion; `draw` paints a state into a layer (split by
/// clip-path, handle in SVG, tags); a dissolve shows the second layer's pictures at the fade's
/// opacity under the first layer's handle and tags, lifted above it (one handle, where the
/// picture mostly is; tags cross-fading), as the renderer draws it. Positions 0 and 1 lie
/// the knob's radius plus 4 pt inside the frame (`ei`), as in `SliderOverlay`.
///
/// Kept under 12 KB with its style, and free of comments (a test checks the size). No
/// `//` anywhere: the page must contain no `//` outside data URIs, which another test checks.
package enum ElementScript {
    /// The JavaScript text.
    package static let source = #"""
        (()=>{
        const M=Math,cl=x=>M.min(1,M.max(0,+x||0)),H='hold';
        const bez=(x1,y1,x2,y2)=>{const cx=3*x1,bx=3*(x2-x1)-cx,ax=1-cx-bx,cy=3*y1,by=3*(y2-y1)-cy,ay=1-cy-by,
        X=t=>((ax*t+bx)*t+cx)*t,Y=t=>((ay*t+by)*t+cy)*t;
        return x=>{x=cl(x);let t=x,e,d,lo=0,hi=1;
        for(let i=0;i<8;i++){e=X(t)-x;if(M.abs(e)<1e-7)return Y(t);d=(3*ax*t+2*bx)*t+cx;if(M.abs(d)<1e-6)break;t-=e/d}
        for(t=x;lo<hi;t=(hi-lo)/2+lo){e=X(t);if(M.abs(e-x)<1e-7||hi-lo<1e-12)break;if(x>e)lo=t;else hi=t}
        return Y(t)}};
        const disp=(w,z,t)=>{if(t<=0)return 1;const E=M.exp;
        if(M.abs(z-1)<1e-9)return E(-w*t)*(1+w*t);
        if(z<1){const d=w*M.sqrt(1-z*z);return E(-z*w*t)*(M.cos(d*t)+z*w/d*M.sin(d*t))}
        const s=M.sqrt(z*z-1),a=-w*(z-s),b=-w*(z+s);return(b*E(a*t)-a*E(b*t))/(b-a)};
        const settle=(w,z,eps=1e-3)=>{const k=z<1?z*w:w*(z-M.sqrt(M.max(0,z*z-1)));if(!(k>0))return 1/0;
        const A=z<1?M.sqrt(1+(z*w/(w*M.sqrt(1-z*z)))**2):2+w*10;let t=M.log(A/eps)/k+.01;
        while(t>0&&M.abs(disp(w,z,t))<eps)t-=5e-4;return M.max(0,t+5e-4)};
        const sc=c=>c.s??(c.s=(s=>s>0&&s<1/0?s:0)(settle(c[0],c[1]))),
        prog=(c,e,d)=>e>=d?1:e<=0||c==H?0:c.length>3?(c.f||(c.f=bez(...c)))(e/d):1-disp(c[0],c[1],sc(c)?e*sc(c)/d:e);
        const mix=(a,b,f)=>a.map?a.map((x,i)=>x+(b[i]-x)*f):a+(b-a)*f,
        seg=(k,t)=>{if(t>=k[0][0])for(let i=1;i<k.length;i++)if(t<k[i][0])return i;return 0},
        val=(k,t)=>{const i=seg(k,t);if(!i)return(t<k[0][0]?k[0]:k[k.length-1])[1];const a=k[i-1],b=k[i];return mix(a[1],b[1],prog(b[2],t-a[0],b[0]-a[0]))},
        move=(k,t)=>{const i=seg(k,t);if(!i)return;const a=k[i-1],b=k[i];if(a[1]+''==b[1]+''||b[2]==H)return;return[a[1],b[1],cl(prog(b[2],t-a[0],b[0]-a[0]))]},
        cut=k=>k.reduce((o,b,i)=>(!i||b[2]==H?o.push(b):o.push([k[i-1][0],b[1],H],[b[0],b[1],H]),o),[]),
        still=k=>k.every(f=>f[1]+''==k[0][1]+''),
        fold=(T,t)=>{const D=T.d,L=T.l;if(!(D>0))return[0,1];
        if(L=='boomerang'){const u=t%(2*D);return[u<D?u:2*D-u]}
        if(L=='forever')return[t%D];const n=L=='once'?1:L;return t>=n*D?[D,1]:[t%D]};
        const mat=([br,c,s,h])=>{const S=[.213+.787*s,.715-.715*s,.072-.072*s,.213-.213*s,.715+.285*s,.072-.072*s,.213-.213*s,.715-.715*s,.072+.928*s],
        r=h*M.PI/180,a=M.cos(r),b=M.sin(r),
        R=[.213+.787*a-.213*b,.715-.715*a-.715*b,.072-.072*a+.928*b,.213-.213*a+.143*b,.715+.285*a+.14*b,.072-.072*a-.283*b,.213-.213*a-.787*b,.715-.715*a+.715*b,.072+.928*a+.072*b],
        o=.5-.5*c+br,v=[];
        for(let i=0;i<9;i+=3){for(let j=0;j<3;j++)v.push(R[i]*S[j]*c+R[i+1]*S[3+j]*c+R[i+2]*S[6+j]*c);v.push(0,(R[i]+R[i+1]+R[i+2])*o)}
        return v.concat(0,0,0,1,0).join(' ')};
        const D={sm:1,hd:1,lb:1,dw:3,dc:'#fff',ks:44,kc:'#fff',sc:'rgba(0,0,0,.3)',sr:6,so:2,gc:'rgba(0,0,0,.7)',gs:17,ls:12,lw:600,lc:'#fff',cc:'rgba(0,0,0,.5)',px:10,py:5,li:12,cr:0,bg:'#000',ff:'sans-serif'};
        let N=0;const A=(e,o)=>{for(const k in o)e.setAttribute(k,o[k])};
        class SweepCompare extends HTMLElement{
        static observedAttributes=['before','after','position','vertical','dir'];
        static curve=prog;static settle=settle;static matrix=mat;static fold=fold;
        get position(){return this.p??cl(this.getAttribute('position')??.5)}
        set position(v){this.pause();this.set(v,1)}
        get vertical(){return this.hasAttribute('vertical')}
        set vertical(v){this.toggleAttribute('vertical',!!v)}
        get playing(){return!!this.R}
        attributeChangedCallback(n,o,v){if(!this.F)return;
        if(n=='position')this.p=cl(v);
        else if(n[0]=='v'||n[0]=='d')this.mk();
        else for(const i of n=='after'?[1,3]:[0,2]){this.im[i].removeAttribute('srcset');this.im[i].src=v||''}
        this.draw()}
        connectedCallback(){if(this.F)return;
        const q=s=>this.querySelector(s),j=q('script[type="application/json"]'),
        C=this.C=Object.assign({},D,j?JSON.parse(j.textContent):{});
        C.w=C.w||+this.getAttribute('width')||800;C.h=C.h||+this.getAttribute('height')||600;C.k=C.k||M.min(C.w,C.h)/390;
        const T=this.T=C.t,id=this.id0='sc'+ ++N,ce=t=>document.createElement(t),
        side=s=>{let i=q('img[data-side='+s+']');if(!i){i=ce('img');i.alt='';i.src=this.getAttribute(s)||''}return i},
        b=side('before'),a=side('after'),F=this.F=ce('div');
        F.className='sc-f';F.tabIndex=0;A(F,{role:'slider','aria-valuemin':0,'aria-valuemax':100,'aria-label':this.getAttribute('aria-label')||'Before and after comparison'});
        this.lab=['before','after'].map((s,i)=>this.getAttribute(s+'-label')??['Before','After'][i]);
        this.L=[[a,b],[a.cloneNode(),b.cloneNode()]].map(([a,b])=>{const d=ce('div'),t=this.lab.map((t,i)=>{const s=ce('span');s.className='sc-t sc-t'+'ba'[i];s.textContent=t;s.hidden=!t||!C.lb;return s});
        d.className='sc-l';d.append(a,b,...t);F.append(d);return{d,a,b,t}});
        this.im=[b,a,this.L[1].b,this.L[1].a];
        let d=q('svg.sc-d');
        if(!d){const f='<filter color-interpolation-filters="sRGB"><feColorMatrix type="matrix"/></filter>';this.insertAdjacentHTML('beforeend',`<svg class="sc-d" aria-hidden="true">${f+f}</svg>`);d=this.lastChild}
        this.fl=['b','a'].map((s,i)=>{const f=d.querySelectorAll('filter')[i];f.id=id+s;return f.firstElementChild});
        this.fc=T?[still(T.b),still(T.a)]:[1,1];this.lk=[];
        const P=this.P=ce('button');P.type='button';P.className='sc-p';P.hidden=!T||still(T.p)&&this.fc[0]&&this.fc[1];P.onclick=()=>this.R?this.pause():this.play();
        this.prepend(F);F.after(P);
        const st={w:C.w+'px',ar:C.w+'/'+C.h,bg:C.bg,cr:C.cr,li:C.li,px:C.px,py:C.py,ls:C.ls,lw:C.lw,lc:C.lc,cc:C.cc,ff:C.ff,u:C.k+'px'};
        for(const k in st)this.style.setProperty('--sc-'+k,st[k]);
        new ResizeObserver(()=>F.clientWidth&&this.style.setProperty('--sc-u',C.k*F.clientWidth/C.w+'px')).observe(F);
        F.onpointerdown=e=>{if(e.button)return;this.pause();F.setPointerCapture(e.pointerId);this.dg=1;this.pt(e)};
        F.onpointermove=e=>{if(this.dg)this.pt(e)};
        F.onpointerup=F.onpointercancel=()=>{if(this.dg){this.dg=0;this.fire('change')}};
        F.onkeydown=e=>{const s=e.shiftKey?.01:.1,h=!this.v&&this.rtl?-1:1,k=e.key,
        d={ArrowRight:s*h,ArrowLeft:-s*h,ArrowUp:this.v?-s:s,ArrowDown:this.v?s:-s}[k],
        q=k=='Home'?0:k=='End'?1:d==null?null:M.round((this.position+d)*1e4)/1e4;
        if(q==null)return;e.preventDefault();this.pause();this.set(q);this.fire('change')};
        this.mk();this.rm='off';
        const s=T?this.at(0):{};if(!T||this.hasAttribute('position'))s.p=this.position;this.show(s);
        if(T&&this.hasAttribute('autoplay'))this.play()}
        disconnectedCallback(){this.pause()}
        ei(){const C=this.C,Z=this.v?C.h:C.w;return[Z,C.hd?M.min((C.ks/2+4)*C.k,Z/4):0]}
        pt(e){const r=this.F.getBoundingClientRect(),[Z,I]=this.ei();let q=((this.v?(e.clientY-r.top)/r.height:(e.clientX-r.left)/r.width)*Z-I)/(Z-2*I);this.set(!this.v&&this.rtl?1-q:q)}
        set(q,quiet){q=cl(q);const c=q!=this.p||this.x;this.p=q;this.x=null;this.draw();if(c&&!quiet)this.fire('input')}
        fire(n){this.dispatchEvent(new Event(n,{bubbles:true}))}
        play(){if(this.R||!this.T)return;
        this.rm=this.C.ra||matchMedia('(prefers-reduced-motion: reduce)').matches?this.C.rm||'dissolve':'off';this.K=0;
        if(this.dn)this.e=this.dn=0;let s0;
        const f=n=>{if(s0==null)s0=n/1e3-(this.e||0);this.e=M.max(0,n/1e3-s0);const[t,d]=fold(this.T,this.e);this.show(this.at(t));
        if(d){this.dn=1;this.pause()}else this.R=requestAnimationFrame(f)};
        this.R=requestAnimationFrame(f);this.btn()}
        pause(){cancelAnimationFrame(this.R);this.R=0;this.btn()}
        btn(){const P=this.P;if(!P)return;P.classList.toggle('sc-play',!this.R);P.setAttribute('aria-label',(this.R?'Pause':'Play')+' animation')}
        at(t){const T=this.T,m=this.rm;
        if(m=='cut'){const K=this.K||(this.K=[T.p,T.b,T.a].map(cut));return{p:val(K[0],t),b:val(K[1],t),a:val(K[2],t)}}
        const s={p:val(T.p,t),b:val(T.b,t),a:val(T.a,t)};
        if(m=='dissolve'){const x=move(T.p,t);if(x){s.p=x[0];s.x=[x[1],x[2]]}else s.p=val(this.K||(this.K=cut(T.p)),t)}
        return s}
        show(s){this.p=s.p;this.x=s.x;if(s.b){this.look(0,s.b);this.look(1,s.a)}this.draw()}
        look(i,v){const k=v+'',fl=this.fl[i];if(this.lk[i]==k)return;
        if(!this.fc[i]||!fl.getAttribute('values'))fl.setAttribute('values',mat(v));
        const f=k=='0,1,1,0'&&this.fc[i]?'':'url(#'+fl.parentNode.id+')';
        this.lk[i]=k;this.im[i].style.filter=this.im[i+2].style.filter=f}
        mk(){const C=this.C,W=C.w,Hh=C.h,v=this.v=this.vertical,u=C.k,r=C.ks*u/2,s=C.gs/17*u,l=9.5*s,e=5*s,d=C.dw*u;
        this.rtl=this.closest('[dir]')?.dir=='rtl';A(this.F,{'aria-orientation':v?'vertical':'horizontal'});
        this.L.forEach((L,k)=>{const id=this.id0+'s'+k;L.d.querySelector('svg')?.remove();
        L.b.insertAdjacentHTML('afterend',`<svg class="sc-h" viewBox="0 0 ${W} ${Hh}" preserveAspectRatio="none" aria-hidden="true"><filter id="${id}" x="-1" y="-1" width="3" height="3"><feGaussianBlur stdDeviation="${C.sr*u/2}"/></filter>${C.hd?`<g><rect ${v?`y="${-d/2}" width="${W}" height="${d}"`:`x="${-d/2}" width="${d}" height="${Hh}"`} fill="${C.dc}"/><g transform="translate(${v?W/2+' 0':'0 '+Hh/2})"><circle r="${r}" cy="${C.so*u}" fill="${C.sc}" filter="url(#${id})"/><circle r="${r}" fill="${C.kc}"/><path d="M${e-l} ${-e}L${-l} 0L${e-l} ${e}M${-l} 0H${l}M${l-e} ${-e}L${l} 0L${l-e} ${e}" fill="none" stroke="${C.gc}" stroke-width="${2.4*s}" stroke-linecap="round" stroke-linejoin="round"${v?' transform="rotate(90)"':''}/></g></g>`:''}</svg>`);
        L.g=L.d.querySelector('svg>g');L.s=L.g?.parentNode});this.pb()}
        pb(){const C=this.C,v=this.v,u=C.k,[Z,I]=this.ei(),g=(C.dw/2+6)*u,o=(v?C.w:C.h)-40*u,S=this.P.style,
        a=[Z-40*u,12*u,Z/2-14*u].find(s=>(this.T?.p.map(f=>f[1])??[.5]).every(q=>(q=I+(Z-2*I)*(v||!this.rtl?q:1-q))+g<s||q-g>s+28*u))??Z-40*u;
        S.left=(v?o:a)/C.w*100+'%';S.top=(v?a:o)/C.h*100+'%'}
        draw(){const C=this.C,v=this.v,x=this.x,[L0,L1]=this.L,[Z,I]=this.ei(),
        E=q=>I+(Z-2*I)*(v||!this.rtl?q:1-q),S=q=>C.sm?E(q):M.round(E(q)),op=q=>[M.min(q/.25,1),M.min((1-q)/.25,1)],
        hd=(L,q)=>L.g?.setAttribute('transform','translate('+(v?'0 '+S(q):S(q)+' 0')+')'),
        paint=(L,q)=>{q=cl(q);const[a,b]=v||!this.rtl?[0,S(q)]:[S(q),Z],A=a/Z*100+'%',B=100-b/Z*100+'%';
        L.b.style.clipPath='inset('+(v?A+' 0 '+B+' 0':'0 '+B+' 0 '+A)+')';hd(L,q);op(q).forEach((o,i)=>L.t[i].style.opacity=o)};
        paint(L0,this.p);L1.d.hidden=!x;
        for(const e of[L0.s,...L0.t])if(e)e.style.zIndex=x?1:'';
        if(L1.s)L1.s.style.visibility=x?'hidden':'';
        if(x){const f=x[1],q=cl(x[0]),a=op(cl(this.p)),b=op(q);L1.d.style.opacity=f;paint(L1,q);L1.t.forEach(t=>t.style.opacity=0);
        hd(L0,f<.5?cl(this.p):q);L0.t.forEach((t,i)=>t.style.opacity=a[i]*(1-f)+b[i]*f)}
        const n=M.round(cl(this.p)*100);A(this.F,{'aria-valuenow':n,'aria-valuetext':n+' % '+(this.lab[0]||'before').toLocaleLowerCase()})}
        }
        ['before','after'].forEach((s,i)=>Object.defineProperty(SweepCompare.prototype,s,{get(){return this.im?this.im[i].currentSrc||this.im[i].src:this.getAttribute(s)},set(v){this.setAttribute(s,v)}}));
        customElements.get('sweep-compare')||customElements.define('sweep-compare',SweepCompare)})();
        """#
}
