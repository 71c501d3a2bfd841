// SPDX-License-Identifier: GPL-2.0-or-later
// tests/cli/flamegraph.t: runs report.html's script over a minimal DOM built
// from its SVG (no browser here): hover, zoom, reset and search must do what
// they say. Exits non-zero with the first failed expectation.
const fs = require('fs');
const html = fs.readFileSync(process.argv[2], 'utf8');
const js = /<script>([\s\S]*?)<\/script>/.exec(html)[1];
function unesc(s){return s.replace(/&lt;/g,'<').replace(/&gt;/g,'>').replace(/&quot;/g,'"').replace(/&#39;/g,"'").replace(/&amp;/g,'&');}
function El(tag, attrs){this.tag=tag;this.a=Object.assign({},attrs||{});this.kids=[];this.cls=new Set((this.a['class']||'').split(' ').filter(Boolean));this.textContent='';this.ev={};this.parent=null;}
El.prototype.getAttribute=function(k){return k in this.a?this.a[k]:null;};
El.prototype.setAttribute=function(k,v){this.a[k]=String(v);};
El.prototype.appendChild=function(c){c.parent=this;this.kids.push(c);};
El.prototype.addEventListener=function(t,f){this.ev[t]=f;};
Object.defineProperty(El.prototype,'classList',{get(){const s=this.cls;return{toggle:(c,on)=>{on?s.add(c):s.delete(c)},remove:c=>s.delete(c),contains:c=>s.has(c)};}});
El.prototype.closest=function(sel){let e=this;while(e){if(e.tag==='g'&&'data-n' in e.a)return e;e=e.parent;}return null;};
function all(root){const out=[];(function w(e){for(const k of e.kids){out.push(k);w(k);}})(root);return out;}
El.prototype.querySelectorAll=function(sel){const xs=all(this);
 if(sel==='g[data-n]')return xs.filter(e=>e.tag==='g'&&'data-n' in e.a);
 if(sel==='figure.fg')return xs.filter(e=>e.tag==='figure');
 if(sel==='svg.fg-svg')return xs.filter(e=>e.tag==='svg');
 if(sel[0]==='.')return xs.filter(e=>e.cls.has(sel.slice(1)));
 return xs.filter(e=>e.tag===sel);};
El.prototype.querySelector=function(sel){return this.querySelectorAll(sel)[0]||null;};
// build from the first figure
const doc=new El('doc');
const figs=html.match(/<figure class="fg">[\s\S]*?<\/figure>/g);
for(const f of figs){const fig=new El('figure',{'class':'fg'});doc.appendChild(fig);
 fig.appendChild(new El('input',{'class':'fg-q'}));fig.appendChild(new El('button',{'class':'fg-reset'}));fig.appendChild(new El('span',{'class':'fg-info'}));
 const vb=/viewBox="0 0 (\d+) (\d+)"/.exec(f);const svg=new El('svg',{'class':'fg-svg','data-total':/data-total="(\d+)"/.exec(f)[1],'data-unit':/data-unit="(\w+)"/.exec(f)[1]});
 svg.viewBox={baseVal:{width:+vb[1]}};fig.appendChild(svg);
 for(const m of f.matchAll(/<g class="(\w+)" data-n="(\d+)"><title>(.*?)<\/title><rect x="([\d.]+)" y="(\d+)" width="([\d.]+)" height="15"\/>(?:<text[^>]*>(.*?)<\/text>)?<\/g>/g)){
  const g=new El('g',{'class':m[1],'data-n':m[2]});const t=new El('title');t.textContent=unesc(m[3]);g.appendChild(t);
  g.appendChild(new El('rect',{x:m[4],y:m[5],width:m[6]}));if(m[7]!==undefined){const tx=new El('text');tx.textContent=unesc(m[7]);g.appendChild(tx);}svg.appendChild(g);}}
global.document={querySelectorAll:s=>doc.querySelectorAll(s),createElementNS:(ns,t)=>new El(t)};
eval(js); // the page script, as the browser would run it
function expect(cond, what){if(!cond){console.log('# failed: '+what);process.exit(1);}}
const fig=doc.querySelector('figure.fg'),svg=fig.querySelector('svg.fg-svg'),info=fig.querySelector('.fg-info'),q=fig.querySelector('.fg-q');
const gs=svg.querySelectorAll('g[data-n]');const byName=n=>gs.find(g=>g.kids[0].textContent===n);
const rect=n=>byName(n).kids[1].a;
svg.ev.mousemove({target:byName('sonde_test_spin').kids[1]});
expect(info.textContent==='sonde_test_spin \u2014 5000 samples (73.86% of all)','hover: '+info.textContent);
svg.ev.click({target:byName('do_work').kids[1]});
expect(rect('do_work').x==='0'&&rect('do_work').width==='1200','zoom: the frame fills the width');
expect(byName('main').cls.has('a')&&!byName('main').cls.has('h')&&rect('main').width==='1200','zoom: ancestors span it');
expect(byName('idle').cls.has('h')&&byName('x').cls.has('h'),'zoom: others hidden');
expect(Math.abs(+rect('sonde_test_spin').width-1200*5000/5300)<0.5,'zoom: children scaled: '+rect('sonde_test_spin').width);
expect(byName('<script>alert(1)</script>').kids[2].textContent==='<scrip..','zoom: labels set as text');
fig.querySelector('.fg-reset').ev.click();
expect(!byName('idle').cls.has('h')&&rect('main').width!=='1200','reset: back to the whole graph');
q.value='SCRIPT';q.ev.input();
expect(info.textContent==='1 frames match: 300 samples, 4.43% of all'&&byName('<script>alert(1)</script>').cls.has('m'),'search: '+info.textContent);
q.value='main';q.ev.input();
expect(info.textContent==='1 frames match: 6500 samples, 96.01% of all','search main: '+info.textContent);
q.value='a';q.ev.input();
expect(info.textContent==='6 frames match: 6770 samples, 100.00% of all','search: nested matches counted once: '+info.textContent);
q.value='';q.ev.input();
expect(info.textContent===''&&!gs.some(g=>g.cls.has('m')),'search cleared');
console.log('script ok');
