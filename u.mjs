import { request } from '/work/main/node_modules/undici/index.js';
import http from 'node:http';
const body = JSON.stringify({model:'x',messages:[]});
async function run(label, fn, n=3000){ for(let i=0;i<300;i++) await fn(); const c0=process.cpuUsage(), t0=performance.now(); for(let i=0;i<n;i++) await fn(); const c=process.cpuUsage(c0); const t=performance.now()-t0; console.log(label, 'wall/req', (t/n*1000).toFixed(0),'us', 'cpu/req', ((c.user+c.system)/n).toFixed(0),'us'); }
await run('undici.request', async()=>{ const r = await request('http://127.0.0.1:4101/v1/chat/completions',{method:'POST',headers:{'content-type':'application/json'},body}); await r.body.text(); });
const agent = new http.Agent({keepAlive:true});
await run('node http', ()=>new Promise((res)=>{ const q=http.request({host:'127.0.0.1',port:4101,path:'/v1/chat/completions',method:'POST',agent,headers:{'content-type':'application/json'}},(a)=>{a.resume();a.on('end',res)}); q.end(body); }));
await run('fetch', async()=>{ const r = await fetch('http://127.0.0.1:4101/v1/chat/completions',{method:'POST',headers:{'content-type':'application/json'},body}); await r.text(); });
