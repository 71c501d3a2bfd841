(function(){'use strict';
var NS='http://www.w3.org/2000/svg',E=1e-3;
function num(el,a){var v=parseFloat(el.getAttribute(a));return isFinite(v)?v:0;}
function setup(fig){
var svg=fig.querySelector('svg.fg-svg');if(!svg)return;
var info=fig.querySelector('.fg-info'),q=fig.querySelector('.fg-q'),reset=fig.querySelector('.fg-reset');
var W=svg.viewBox.baseVal.width,total=num(svg,'data-total'),us=svg.getAttribute('data-unit')==='us',frames=[],byG=new Map();
Array.prototype.forEach.call(svg.querySelectorAll('g[data-n]'),function(g){
var r=g.querySelector('rect'),ti=g.querySelector('title');if(!r)return;
var f={g:g,r:r,t:g.querySelector('text'),name:ti?ti.textContent:'',n:num(g,'data-n'),x:num(r,'x'),w:num(r,'width'),y:num(r,'y'),was:g.getAttribute('data-was')};frames.push(f);byG.set(g,f);});
function fmt(n){if(!us)return n+(n===1?' sample':' samples');if(n>=1e6)return (n/1e6).toFixed(2)+' s';if(n>=1e3)return (n/1e3).toFixed(1)+' ms';return n+' us';}
function pct(n){return total>0?(100*n/total).toFixed(2)+'%':'-';}
function label(f,x,w){var c=Math.floor((w-6)/7);
if(c<3){if(f.t)f.t.textContent='';return;}
if(!f.t){f.t=document.createElementNS(NS,'text');f.t.setAttribute('y',String(f.y+12));f.g.appendChild(f.t);}
f.t.setAttribute('x',String(x+3));f.t.textContent=f.name.length<=c?f.name:f.name.slice(0,c-2)+'..';}
function place(f,x,w,show){f.g.classList.toggle('h',!show);if(!show)return;
f.r.setAttribute('x',String(x));f.r.setAttribute('width',String(w));label(f,x,w);}
function zoom(z){var s=W/z.w;frames.forEach(function(f){
if(f.y>z.y)place(f,0,W,f.x<=z.x+E&&f.x+f.w>=z.x+z.w-E);
else place(f,(f.x-z.x)*s,f.w*s,f.x>=z.x-E&&f.x+f.w<=z.x+z.w+E);
f.g.classList.toggle('a',f.y>z.y);});}
function unzoom(){frames.forEach(function(f){place(f,f.x,f.w,true);f.g.classList.remove('a');});}
function hit(ev){var g=ev.target&&ev.target.closest?ev.target.closest('g[data-n]'):null;return g?byG.get(g):null;}
svg.addEventListener('mousemove',function(ev){var f=hit(ev);if(f&&info)info.textContent=f.name+' \u2014 '+fmt(f.n)+' ('+pct(f.n)+' of all'+(f.was!==null?', before '+f.was:'')+')';});
svg.addEventListener('click',function(ev){var f=hit(ev);if(f)zoom(f);});
if(reset)reset.addEventListener('click',unzoom);
if(q)q.addEventListener('input',function(){var t=q.value.toLowerCase(),m=[];
frames.forEach(function(f){var on=t!==''&&f.name.toLowerCase().indexOf(t)>=0;f.g.classList.toggle('m',on);if(on)m.push(f);});
if(t===''){if(info)info.textContent='';return;}
m.sort(function(a,b){return a.x-b.x||b.w-a.w;});
var end=-1,sum=0;m.forEach(function(f){if(f.x+f.w<=end+E)return;sum+=f.n;end=f.x+f.w;});
if(info)info.textContent=m.length+' frames match: '+fmt(sum)+', '+pct(sum)+' of all';});
}
Array.prototype.forEach.call(document.querySelectorAll('figure.fg'),setup);
})();
