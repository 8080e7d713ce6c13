import type { NodeProps } from "../runtime/hooks";
import "./post-list.css";

/** Posts with their picture, date and count ('12 likes'). */
export function PostList({ node }: NodeProps<"post_list">) {
  return (
    <ul className="post-list" aria-label={node.label}>
      {node.posts.map((post, index) => (
        <li key={index} className="post">
          <img className="post__image" src={post.image.src} alt={post.image.alt} decoding="async" />
          <span className="post__meta">
            {post.date !== undefined ? (
              <time className="post__date" dateTime={post.date}>
                {post.dateLabel}
              </time>
            ) : (
              <span className="post__date">{post.dateLabel}</span>
            )}
            <span className="post__count">{post.countLabel}</span>
          </span>
        </li>
      ))}
    </ul>
  );
}
