/**
 * The demo video player, rendered only once running in a browser: poster image,
 * native controls without download, no context menu, metadata-only preloading, English
 * captions. A playback error is only logged.
 */
import { useEffect, useState } from 'react';
import { DEMO_CAPTIONS_URL, DEMO_POSTER_URL, DEMO_VIDEO_URL } from '../../shared/config.ts';

export function DemoVideo({ src = DEMO_VIDEO_URL, poster = DEMO_POSTER_URL, captions = DEMO_CAPTIONS_URL }: { src?: string; poster?: string; captions?: string }) {
  const [inBrowser, setInBrowser] = useState(false);
  useEffect(() => setInBrowser(true), []);
  if (!inBrowser) return <div className="demo-video demo-video--placeholder" />;
  return (
    <video
      className="demo-video"
      src={src}
      poster={poster}
      controls
      controlsList="nodownload"
      preload="metadata"
      playsInline
      onContextMenu={(event) => event.preventDefault()}
      onError={(event) => console.error('The demo video could not be played', event.currentTarget.error)}
    >
      <track kind="captions" src={captions} srcLang="en" label="English" default />
      Your browser does not support the video tag.
    </video>
  );
}
